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

import io.rhino.core.handover.HandoverCommand;
import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real threads: a real timer, a port that answers synchronously, and a concurrent stress run. */
@Timeout(60)
class HandoverManagerConcurrencyTest {

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService cluster = Executors.newFixedThreadPool(2);

    @AfterEach
    void stopThreads() throws InterruptedException {
        timer.shutdownNow();
        cluster.shutdownNow();
        assertThat(timer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(cluster.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void timesOutOnARealTimerThread() throws Exception {
        CountDownLatch jobFailed = new CountDownLatch(1);
        RecordingPort port = new RecordingPort();
        port.onFailJob = cause -> jobFailed.countDown();
        HandoverManager manager =
                new HandoverManager(
                        "op",
                        Harness.table16(),
                        2,
                        port,
                        HandoverManagerOptions.builder().timeout(Duration.ofMillis(50)).build(),
                        System::currentTimeMillis,
                        timer);

        CompletableFuture<HandoverResult> future = manager.handover(Harness.moves(1, 0, 2));

        HandoverResult result = future.get(10, TimeUnit.SECONDS);
        assertThat(jobFailed.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(result.failureCause().orElseThrow())
                .startsWith(
                        "timed out after 50 ms in phase REQUESTED (waiting for: routers [0, 1]");
        assertThat(port.jobFailures).singleElement().isInstanceOf(HandoverTimeoutException.class);
    }

    @Test
    void portThatAnswersSynchronouslyAndCallbacksThatRequestMoreDoNotDeadlock() {
        AtomicReference<HandoverManager> managerRef = new AtomicReference<>();
        HandoverManager.ProtocolPort port =
                new HandoverManager.ProtocolPort() {
                    @Override
                    public void sendToRouters(HandoverCommand command) {
                        HandoverManager manager = managerRef.get();
                        HandoverId id = command.handoverId();
                        manager.onRouterAck(id, 0);
                        Map<Integer, List<Integer>> byOrigin = new TreeMap<>();
                        command.plan()
                                .moves()
                                .forEach(
                                        m ->
                                                byOrigin.computeIfAbsent(
                                                                m.fromSubtask(),
                                                                o -> new ArrayList<>())
                                                        .add(m.vnode()));
                        byOrigin.forEach(
                                (origin, vnodes) ->
                                        manager.onOriginShipped(
                                                id,
                                                origin,
                                                Harness.shipped(
                                                        command.plan(),
                                                        id,
                                                        vnodes.toArray(Integer[]::new))));
                    }

                    @Override
                    public void sendToTarget(
                            int targetSubtask, HandoverId id, List<ShippedVnode> vnodes) {
                        Set<Integer> numbers = new TreeSet<>();
                        vnodes.forEach(v -> numbers.add(v.vnode()));
                        managerRef.get().onTargetInstalled(id, targetSubtask, numbers);
                    }

                    @Override
                    public void failJob(Throwable cause) {
                        throw new AssertionError("unexpected failJob", cause);
                    }
                };
        HandoverManager manager =
                new HandoverManager(
                        "op",
                        Harness.table16(),
                        1,
                        port,
                        HandoverManagerOptions.defaults(),
                        System::currentTimeMillis,
                        timer);
        managerRef.set(manager);
        List<HandoverResult> results = new ArrayList<>();
        CompletableFuture<Void> chainDone = new CompletableFuture<>();

        // Each completion requests the next handover from inside the callback.
        requestChain(manager, 5, results, chainDone);

        assertThat(chainDone).isCompleted();
        assertThat(results).hasSize(5).allMatch(HandoverResult::isCompleted);
        assertThat(manager.routingTable().epoch()).isEqualTo(5);
    }

    private static void requestChain(
            HandoverManager manager,
            int remaining,
            List<HandoverResult> results,
            CompletableFuture<Void> done) {
        if (remaining == 0) {
            done.complete(null);
            return;
        }
        int owner = manager.routingTable().ownerOf(1);
        manager.handover(Harness.moves(1, owner, owner == 2 ? 3 : 2))
                .thenAccept(
                        result -> {
                            results.add(result);
                            requestChain(manager, remaining - 1, results, done);
                        });
    }

    @Test
    void concurrentRequestsReportsAndCheckpointsNeverOverlapAndAllFinish() throws Exception {
        Queue<String> violations = new ConcurrentLinkedQueue<>();
        // The last started handover; it has ended once the manager has its result.
        AtomicReference<HandoverId> lastStarted = new AtomicReference<>();
        AtomicInteger checkpointsActive = new AtomicInteger();
        AtomicInteger checkpointsTaken = new AtomicInteger();
        AtomicReference<HandoverManager> managerRef = new AtomicReference<>();
        int routers = 3;
        HandoverManager.ProtocolPort port =
                new HandoverManager.ProtocolPort() {
                    @Override
                    public void sendToRouters(HandoverCommand command) {
                        HandoverId previous = lastStarted.getAndSet(command.handoverId());
                        if (previous != null && managerRef.get().result(previous).isEmpty()) {
                            violations.add("two handovers at once");
                        }
                        if (checkpointsActive.get() != 0) {
                            violations.add("handover started during a checkpoint");
                        }
                        Random random = new Random(command.handoverId().hashCode());
                        for (ProtocolEvent event :
                                ProtocolEvent.randomOrder(
                                        command.handoverId(), command.plan(), routers, random)) {
                            if (!(event instanceof ProtocolEvent.TargetInstalled)) {
                                cluster.execute(() -> event.deliverTo(managerRef.get()));
                            }
                        }
                    }

                    @Override
                    public void sendToTarget(
                            int targetSubtask, HandoverId id, List<ShippedVnode> vnodes) {
                        Set<Integer> numbers = new TreeSet<>();
                        vnodes.forEach(v -> numbers.add(v.vnode()));
                        cluster.execute(
                                () ->
                                        managerRef
                                                .get()
                                                .onTargetInstalled(id, targetSubtask, numbers));
                    }

                    @Override
                    public void failJob(Throwable cause) {
                        violations.add("failJob: " + cause.getMessage());
                    }
                };
        HandoverManager manager =
                new HandoverManager(
                        "op",
                        Harness.table16(),
                        routers,
                        port,
                        HandoverManagerOptions.builder().timeout(Duration.ofSeconds(20)).build(),
                        System::currentTimeMillis,
                        timer);
        managerRef.set(manager);
        AtomicBoolean stop = new AtomicBoolean();

        Thread checkpointer =
                new Thread(
                        () -> {
                            for (long id = 1; !stop.get(); id++) {
                                CountDownLatch proceeded = new CountDownLatch(1);
                                manager.beforeCheckpoint(
                                        id,
                                        () -> {
                                            HandoverId started = lastStarted.get();
                                            if (started != null
                                                    && manager.result(started).isEmpty()) {
                                                violations.add("checkpoint during " + started);
                                            }
                                            checkpointsActive.incrementAndGet();
                                            checkpointsTaken.incrementAndGet();
                                            proceeded.countDown();
                                        });
                                try {
                                    if (!proceeded.await(20, TimeUnit.SECONDS)) {
                                        violations.add("checkpoint " + id + " never proceeded");
                                        return;
                                    }
                                    Thread.sleep(1);
                                } catch (InterruptedException e) {
                                    return;
                                }
                                checkpointsActive.decrementAndGet();
                                manager.checkpointEnded(id);
                            }
                        },
                        "checkpointer");
        checkpointer.start();

        Random random = new Random(42);
        int completed = 0;
        int rejected = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (completed < 100 && System.nanoTime() < deadline) {
            RoutingTable table = manager.routingTable();
            int vnode = random.nextInt(16);
            int from = table.ownerOf(vnode);
            int to = (from + 1 + random.nextInt(3)) % 4;
            CompletableFuture<HandoverResult> future =
                    manager.handover(List.of(new VnodeMove(vnode, from, to)));
            if (future.isCompletedExceptionally()) {
                rejected++;
                continue;
            }
            HandoverResult result = future.get(20, TimeUnit.SECONDS);
            assertThat(result.isCompleted()).as("%s", result).isTrue();
            completed++;
        }
        stop.set(true);
        checkpointer.join(TimeUnit.SECONDS.toMillis(30));

        assertThat(violations).isEmpty();
        assertThat(checkpointsTaken).hasPositiveValue();
        assertThat(completed).isEqualTo(100);
        assertThat(manager.metrics().completed()).isEqualTo(100);
        assertThat(manager.metrics().rejected()).isEqualTo(rejected);
        assertThat(manager.routingTable().epoch()).isEqualTo(100);
    }
}
