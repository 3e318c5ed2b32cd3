/*
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package io.rhino.benchmarks.scenarios;

/**
 * One rate of a maximum-throughput search as measured over the step's second half.
 *
 * @param targetMegabytesPerSecond the rate the generator was set to, all threads together
 * @param producedMegabytesPerSecond what it produced
 * @param consumedMegabytesPerSecond what the query consumed (the topics it reads)
 * @param producedInputRecordsPerSecond records produced to the topics the query reads
 * @param consumedRecordsPerSecond what the query consumed in records
 * @param medianP99Ms median of the per-second p99 latencies; -1 without results
 * @param sustained the verdict
 */
record RateStep(
        double targetMegabytesPerSecond,
        double producedMegabytesPerSecond,
        double consumedMegabytesPerSecond,
        double producedInputRecordsPerSecond,
        double consumedRecordsPerSecond,
        long medianP99Ms,
        boolean sustained) {}
