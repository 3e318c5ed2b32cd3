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

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.apache.kafka.common.utils.KafkaThread;
import org.junit.jupiter.api.Test;

class InputSideThreadsTest {

    @Test
    void theGeneratorAndKafkasThreadsAreTheInputSideTheJobsKafkaClientsAndTasksAreNot() {
        Runnable idle = () -> {};
        assertThat(InputSideThreads.isInputSide(new Thread(idle, "nexmark-producer-0"))).isTrue();
        assertThat(
                        InputSideThreads.isInputSide(
                                new KafkaThread("data-plane-kafka-request-handler-0", idle, true)))
                .isTrue();
        assertThat(
                        InputSideThreads.isInputSide(
                                new KafkaThread(
                                        "kafka-admin-client-thread | enumerator", idle, true)))
                .isFalse();
        assertThat(
                        InputSideThreads.isInputSide(
                                new Thread(idle, "Source: kafka-nexmark-bids (1/4)#0")))
                .isFalse();
    }

    @Test
    void countsTheCpuOfInputSideThreadsOnly() throws Exception {
        InputSideThreads counting = InputSideThreads.startCounting();
        Thread job = busyThenIdle(new Thread(InputSideThreadsTest::burn, "Window(nbq8) (1/4)#0"));
        long jobOnly = counting.cpuMillisSinceStart();
        Thread feed =
                busyThenIdle(
                        new KafkaThread(
                                "kafka-log-cleaner-thread-0", InputSideThreadsTest::burn, true));
        long withFeed = counting.cpuMillisSinceStart();
        job.interrupt();
        feed.interrupt();

        assertThat(jobOnly).isLessThan(100);
        assertThat(withFeed - jobOnly).isGreaterThanOrEqualTo(300);
    }

    /** Starts {@code thread} and returns once it burnt its CPU and sleeps (still alive). */
    private static Thread busyThenIdle(Thread thread) throws InterruptedException {
        thread.setDaemon(true);
        thread.start();
        while (thread.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(10);
        }
        return thread;
    }

    /** Uses 300 ms of CPU, then sleeps until interrupted: the CPU of ended threads is not seen. */
    private static void burn() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long until = threads.getCurrentThreadCpuTime() + 300_000_000L;
        while (threads.getCurrentThreadCpuTime() < until) {
            Thread.onSpinWait();
        }
        try {
            Thread.sleep(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
