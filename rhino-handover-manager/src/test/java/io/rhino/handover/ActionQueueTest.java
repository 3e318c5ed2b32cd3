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

package io.rhino.handover;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ActionQueueTest {

    private final ActionQueue queue = new ActionQueue("op");
    private final List<String> ran = Collections.synchronizedList(new ArrayList<>());

    @Test
    void runsActionsInOrder() {
        queue.add(() -> ran.add("a"));
        queue.add(() -> ran.add("b"));
        assertThat(ran).isEmpty();
        queue.runPending();
        assertThat(ran).containsExactly("a", "b");
    }

    @Test
    void actionAddedByAnActionRunsAfterItNotNested() {
        queue.add(
                () -> {
                    ran.add("outer start");
                    queue.add(() -> ran.add("inner"));
                    queue.runPending(); // returns at once: this thread is already running
                    ran.add("outer end");
                });
        queue.runPending();
        assertThat(ran).containsExactly("outer start", "outer end", "inner");
    }

    @Test
    void failingActionIsSkipped() {
        queue.add(
                () -> {
                    throw new IllegalStateException("adapter bug");
                });
        queue.add(() -> ran.add("after"));
        queue.runPending();
        assertThat(ran).containsExactly("after");
    }

    @Test
    void errorEscapesButDoesNotWedgeTheQueue() {
        queue.add(
                () -> {
                    throw new AssertionError("fatal");
                });
        queue.add(() -> ran.add("later"));
        try {
            queue.runPending();
        } catch (AssertionError expected) {
            ran.add("caught");
        }
        queue.runPending();
        assertThat(ran).containsExactly("caught", "later");
    }

    @Test
    void actionsNeverRunConcurrently() throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicInteger count = new AtomicInteger();
        int threads = 4;
        int perThread = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        for (int t = 0; t < threads; t++) {
            pool.execute(
                    () -> {
                        try {
                            start.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                        for (int i = 0; i < perThread; i++) {
                            queue.add(
                                    () -> {
                                        maxRunning.accumulateAndGet(
                                                running.incrementAndGet(), Math::max);
                                        count.incrementAndGet();
                                        running.decrementAndGet();
                                    });
                            queue.runPending();
                        }
                    });
        }
        start.countDown();
        pool.shutdown();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        queue.runPending();
        assertThat(count).hasValue(threads * perThread);
        assertThat(maxRunning).hasValue(1);
    }
}
