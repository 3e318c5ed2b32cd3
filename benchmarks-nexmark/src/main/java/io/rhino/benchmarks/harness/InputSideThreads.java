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

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CPU time of this JVM's threads that feed a run instead of running its job: the embedded Kafka
 * broker's and the NEXMark generator's. Both systems under test share that feed at equal input, so
 * the process's CPU per consumed record dilutes any difference between them; figures "without the
 * input side" subtract it. A thread belongs to the input side when it is the generator's ({@code
 * nexmark-producer-*}) or a Kafka class runs it (the broker's threads are {@code KafkaThread}s and
 * {@code ShutdownableThread}s), except the Kafka clients of the job itself (its sources' consumers
 * and admin client). CPU of threads that end inside a window is missed; the broker's and
 * generator's live for the whole run.
 */
public final class InputSideThreads {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static final Logger LOG = LoggerFactory.getLogger(InputSideThreads.class);

    private final Map<Long, Long> cpuNanosAtStart;

    private InputSideThreads(Map<Long, Long> cpuNanosAtStart) {
        this.cpuNanosAtStart = cpuNanosAtStart;
    }

    /** Starts counting the input side's CPU from now, and logs which threads it counts. */
    public static InputSideThreads startCounting() {
        List<Thread> threads = inputSideThreads();
        SortedSet<String> names = new TreeSet<>();
        threads.forEach(t -> names.add(t.getName().replaceAll("[0-9]+", "N")));
        LOG.info("Counting {} threads as the input side: {}", threads.size(), names);
        return new InputSideThreads(cpuNanos(threads));
    }

    /** The input side's CPU since {@link #startCounting()}, in milliseconds. */
    public long cpuMillisSinceStart() {
        long nanos = 0;
        for (Map.Entry<Long, Long> thread : cpuNanos(inputSideThreads()).entrySet()) {
            nanos += thread.getValue() - cpuNanosAtStart.getOrDefault(thread.getKey(), 0L);
        }
        return nanos / 1_000_000;
    }

    /** Whether {@code thread} feeds the run rather than runs the job. */
    static boolean isInputSide(Thread thread) {
        String name = thread.getName();
        if (name.startsWith("nexmark-producer-")) {
            return true;
        }
        if (name.contains("admin-client") || name.contains("consumer")) {
            return false;
        }
        for (Class<?> type = thread.getClass(); type != null; type = type.getSuperclass()) {
            if (type.getName().startsWith("org.apache.kafka.")
                    || type.getName().startsWith("kafka.")) {
                return true;
            }
        }
        return false;
    }

    private static List<Thread> inputSideThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(InputSideThreads::isInputSide)
                .toList();
    }

    /** Each live thread's CPU time by id; empty where the JVM does not measure it. */
    private static Map<Long, Long> cpuNanos(List<Thread> threads) {
        Map<Long, Long> cpu = new HashMap<>();
        if (!THREADS.isThreadCpuTimeSupported()) {
            return cpu;
        }
        for (Thread thread : threads) {
            long nanos = THREADS.getThreadCpuTime(thread.getId());
            if (nanos >= 0) {
                cpu.put(thread.getId(), nanos);
            }
        }
        return cpu;
    }
}
