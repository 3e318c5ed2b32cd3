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

import java.util.List;

/**
 * What a {@link ThroughputMeter} holds at one moment.
 *
 * @param perSecond one entry per second since the start, in order, without gaps
 * @param records all records counted
 * @param bytes all bytes counted
 * @param seconds time from the start to the last tick
 */
public record ThroughputReport(
        List<SecondThroughput> perSecond, long records, long bytes, double seconds) {

    /** One megabyte: 10^6 bytes, as in the paper's MB/s. */
    public static final double MEGABYTE = 1_000_000.0;

    /** Records and bytes of one second of the run. */
    public record SecondThroughput(long second, long records, long bytes, double seconds) {

        public double recordsPerSecond() {
            return seconds > 0 ? records / seconds : 0;
        }

        public double megabytesPerSecond() {
            return seconds > 0 ? bytes / MEGABYTE / seconds : 0;
        }
    }

    public ThroughputReport {
        perSecond = List.copyOf(perSecond);
    }

    public double recordsPerSecond() {
        return seconds > 0 ? records / seconds : 0;
    }

    public double megabytesPerSecond() {
        return seconds > 0 ? bytes / MEGABYTE / seconds : 0;
    }
}
