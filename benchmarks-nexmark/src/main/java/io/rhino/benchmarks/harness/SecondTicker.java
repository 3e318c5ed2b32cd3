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

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The heartbeat of a run: calls a task at a fixed rate on a daemon thread until closed. */
final class SecondTicker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SecondTicker.class);

    private final ScheduledExecutorService executor;

    SecondTicker(String name, Duration period, Runnable task) {
        executor =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, name);
                            t.setDaemon(true);
                            return t;
                        });
        long millis = Math.max(1, period.toMillis());
        executor.scheduleAtFixedRate(
                () -> {
                    try {
                        task.run();
                    } catch (RuntimeException e) {
                        // One failed tick must not end the series (a scheduled task that throws
                        // is never run again).
                        LOG.warn("Heartbeat {} failed: {}", name, e.toString(), e);
                    }
                },
                millis,
                millis,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        executor.shutdown();
        if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
            executor.shutdownNow();
        }
    }
}
