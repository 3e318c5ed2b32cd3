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

package io.rhino.benchmarks.replication;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * Wall-clock time and CPU time of the whole process over one section. The process is the right
 * scope: every member of a chain, senders and receivers, runs in this JVM.
 *
 * @param cpuSeconds NaN where the JVM cannot tell the process' CPU time
 */
public record Timing(double seconds, double cpuSeconds) {

    /** The timed work. */
    @FunctionalInterface
    public interface Section {
        void run() throws Exception;
    }

    public static Timing of(Section section) throws Exception {
        OperatingSystemMXBean os =
                (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpuBefore = os.getProcessCpuTime();
        long start = System.nanoTime();
        section.run();
        long wallNanos = System.nanoTime() - start;
        long cpuAfter = os.getProcessCpuTime();
        double cpuSeconds = cpuBefore < 0 ? Double.NaN : (cpuAfter - cpuBefore) / 1e9;
        return new Timing(wallNanos / 1e9, cpuSeconds);
    }
}
