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

package io.rhino.benchmarks.harness;

/**
 * One sample of {@link ProcessResourceSampler}. Process figures are sums over the sampled
 * processes; network figures are the machine's (all interfaces). A field is null when its source
 * could not be read; rates are null on the first sample.
 *
 * @param second second of the run the sample was taken in
 * @param atMillis wall-clock time of the sample
 * @param cpuMillis cumulative CPU time (user + system)
 * @param cpuPercent CPU time since the previous sample over wall time, in percent of one core
 * @param rssBytes resident memory
 * @param diskReadBytes cumulative bytes read from storage ({@code read_bytes})
 * @param diskWriteBytes cumulative bytes written to storage ({@code write_bytes})
 * @param diskReadBytesPerSecond rate of {@code diskReadBytes}
 * @param diskWriteBytesPerSecond rate of {@code diskWriteBytes}
 * @param netRxBytes cumulative bytes received by the machine
 * @param netTxBytes cumulative bytes sent by the machine
 * @param netRxBytesPerSecond rate of {@code netRxBytes}
 * @param netTxBytesPerSecond rate of {@code netTxBytes}
 */
public record ResourceSample(
        long second,
        long atMillis,
        Long cpuMillis,
        Double cpuPercent,
        Long rssBytes,
        Long diskReadBytes,
        Long diskWriteBytes,
        Double diskReadBytesPerSecond,
        Double diskWriteBytesPerSecond,
        Long netRxBytes,
        Long netTxBytes,
        Double netRxBytesPerSecond,
        Double netTxBytesPerSecond) {}
