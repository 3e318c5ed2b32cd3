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
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.handover.InvalidHandoverException;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Throws seeded random sequences of handover requests, protocol reports (reordered, repeated,
 * lost), checkpoints, timeouts, job failures and restores at one manager, in the style of Kafka
 * Streams' {@code TaskAssignorConvergenceTest}. After every step it checks the invariants; at the
 * end it heals the cluster and checks that everything finished. A failure prints the seed and the
 * history.
 */
class HandoverManagerConvergenceTest {

    @Property(tries = 200)
    void convergesAndNeverOverlapsHandoversWithCheckpoints(@ForAll long seed) {
        Simulation simulation = new Simulation(seed);
        try {
            simulation.run(300);
            simulation.healAndCheckConvergence();
        } catch (Throwable failure) {
            throw new AssertionError(
                    "seed "
                            + seed
                            + ", "
                            + simulation.describe()
                            + "\nhistory:\n"
                            + String.join("\n", simulation.history),
                    failure);
        }
    }

    /** A manager, a fake cluster answering its commands, and a model of what must hold. */
    private static final class Simulation implements HandoverManager.ProtocolPort {

        private static final long TIMEOUT = 1_000;

        final List<String> history = new ArrayList<>();
        private final Random random;
        private final FakeClock clock = new FakeClock(0);
        private final ManualScheduler scheduler = new ManualScheduler(clock);
        private final int routers;
        private final int maxQueued;
        private final RoutingTable initial;
        private final HandoverManager manager;

        // The model.
        private RoutingTable expectedTable;
        private RoutingTable lastCheckpointedTable;
        private final List<ProtocolEvent> pending = new ArrayList<>();
        private final List<ProtocolEvent> delivered = new ArrayList<>();
        private final Set<HandoverId> startedNotEnded = new LinkedHashSet<>();
        private final Set<Long> announcedCheckpoints = new TreeSet<>();
        private final Set<Long> proceededNotEnded = new TreeSet<>();
        private final Set<Long> everProceeded = new TreeSet<>();
        private final Set<Long> endedWhileDeferred = new TreeSet<>();
        private final Map<Long, RoutingTable> tableByCheckpoint = new HashMap<>();
        private final List<CompletableFuture<HandoverResult>> accepted = new ArrayList<>();
        private final List<String> violations = new ArrayList<>();
        private long commandsSent;
        private long completedResults;
        private long nextCheckpointId = 1;
        private int nextHandover = 1;
        private boolean jobFailing;

        Simulation(long seed) {
            random = new Random(seed);
            int parallelism = 2 + random.nextInt(5);
            initial =
                    RoutingTable.initial(
                            new VnodeLayout(64, 8 + random.nextInt(25)),
                            parallelism,
                            1 + random.nextInt(parallelism));
            routers = 1 + random.nextInt(4);
            maxQueued = random.nextInt(3);
            expectedTable = initial;
            lastCheckpointedTable = initial;
            HandoverManagerOptions options =
                    HandoverManagerOptions.builder()
                            .timeout(java.time.Duration.ofMillis(TIMEOUT))
                            .maxQueued(maxQueued)
                            .build();
            manager = new HandoverManager("sim", initial, routers, this, options, clock, scheduler);
        }

        String describe() {
            return "routers=" + routers + ", maxQueued=" + maxQueued + ", initial=" + initial;
        }

        void run(int steps) {
            for (int step = 0; step < steps; step++) {
                int dice = random.nextInt(100);
                if (dice < 18) {
                    requestHandover();
                } else if (dice < 55) {
                    deliverPending();
                } else if (dice < 60) {
                    repeatDelivered();
                } else if (dice < 63) {
                    losePending();
                } else if (dice < 72) {
                    beginCheckpoint();
                } else if (dice < 82) {
                    endCheckpoint(random.nextBoolean());
                } else if (dice < 92) {
                    advanceTime(1 + random.nextInt((int) TIMEOUT + 500));
                } else if (dice < 97 && jobFailing) {
                    restart();
                } else if (dice < 98) {
                    restart(); // a failure that has nothing to do with handovers
                }
                checkInvariants();
            }
        }

        void healAndCheckConvergence() {
            history.add("--- heal: no more losses or failures");
            if (jobFailing) {
                restart();
            }
            for (int round = 0; round < 50 && !settled(); round++) {
                for (Long checkpoint : List.copyOf(announcedCheckpoints)) {
                    end(checkpoint, true);
                }
                while (!pending.isEmpty()) {
                    deliverPending();
                }
                if (jobFailing) {
                    restart();
                }
                advanceTime(TIMEOUT);
                checkInvariants();
            }
            assertThat(settled()).as("settled after healing").isTrue();
            assertThat(accepted).allSatisfy(f -> assertThat(f).isDone());
            assertThat(manager.currentHandover()).isEmpty();
            HandoverMetrics metrics = manager.metrics();
            assertThat(metrics.inFlight()).isFalse();
            assertThat(metrics.queued()).isZero();
            assertThat(metrics.completed() + metrics.failed()).isEqualTo(accepted.size());
            // Every checkpoint either proceeded or ended before it could.
            Set<Long> all = new TreeSet<>();
            for (long id = 1; id < nextCheckpointId; id++) {
                all.add(id);
            }
            all.removeAll(everProceeded);
            assertThat(endedWhileDeferred).containsAll(all);

            // Still live: one more handover goes through.
            history.add("--- final handover");
            CompletableFuture<HandoverResult> last =
                    manager.handover(randomMoves(expectedTable, 1 + random.nextInt(3)));
            accepted.add(last);
            last.whenComplete(this::onEnded);
            while (!pending.isEmpty()) {
                deliverPending();
            }
            assertThat(last.join().isCompleted()).as("final handover completed").isTrue();
            checkInvariants();
        }

        private boolean settled() {
            return pending.isEmpty()
                    && announcedCheckpoints.isEmpty()
                    && !jobFailing
                    && accepted.stream().allMatch(CompletableFuture::isDone);
        }

        // ------------------------------------------------------------ steps

        private void requestHandover() {
            HandoverMetrics before = manager.metrics();
            RoutingTable tableBefore = manager.routingTable();
            CompletableFuture<HandoverResult> future;
            String what;
            if (random.nextInt(3) == 0) {
                List<VnodeMove> moves = randomMoves(expectedTable, 1 + random.nextInt(4));
                what = "handover(moves " + moves + ")";
                future = manager.handover(moves);
            } else {
                HandoverPlan plan = randomPlan();
                HandoverId id = new HandoverId("h" + nextHandover++);
                what = "handover(" + id + ", " + plan + ")";
                future = manager.handover(id, plan);
            }
            if (future.isCompletedExceptionally()) {
                Throwable cause = causeOf(future);
                history.add(what + " -> refused: " + cause.getMessage());
                check(
                        cause instanceof HandoverRejectedException
                                || cause instanceof InvalidHandoverException,
                        "unexpected refusal " + cause);
                HandoverMetrics after = manager.metrics();
                check(
                        after.rejected() == before.rejected() + 1
                                && after.started() == before.started()
                                && after.completed() == before.completed()
                                && after.failed() == before.failed()
                                && after.queued() == before.queued()
                                && after.inFlight() == before.inFlight()
                                && manager.routingTable().equals(tableBefore),
                        "a refusal changed something: " + before + " -> " + after);
                return;
            }
            history.add(what + " -> accepted");
            accepted.add(future);
            future.whenComplete(this::onEnded);
        }

        private void onEnded(HandoverResult result, Throwable error) {
            if (error != null) {
                violations.add("accepted future failed exceptionally: " + error);
                return;
            }
            history.add(
                    "  ended "
                            + result.id()
                            + " "
                            + result.outcome()
                            + " "
                            + result.failureCause().orElse(""));
            startedNotEnded.remove(result.id());
            if (result.isCompleted()) {
                completedResults++;
                check(
                        result.plan().basedOnEpoch() == expectedTable.epoch(),
                        "completed " + result.plan() + " but table was " + expectedTable);
                expectedTable = expectedTable.apply(result.plan());
                check(
                        manager.routingTable().equals(expectedTable),
                        "table at completion "
                                + manager.routingTable()
                                + ", expected "
                                + expectedTable);
            }
        }

        private void deliverPending() {
            if (pending.isEmpty()) {
                return;
            }
            ProtocolEvent event = pending.remove(random.nextInt(pending.size()));
            history.add("deliver " + event.id() + " " + event);
            delivered.add(event);
            event.deliverTo(manager);
        }

        private void repeatDelivered() {
            if (delivered.isEmpty()) {
                return;
            }
            ProtocolEvent event = delivered.get(random.nextInt(delivered.size()));
            history.add("repeat " + event.id() + " " + event);
            event.deliverTo(manager);
        }

        private void losePending() {
            if (pending.isEmpty()) {
                return;
            }
            ProtocolEvent event = pending.remove(random.nextInt(pending.size()));
            history.add("lose " + event.id() + " " + event);
        }

        private void beginCheckpoint() {
            long id = nextCheckpointId++;
            announcedCheckpoints.add(id);
            history.add("beforeCheckpoint " + id);
            manager.beforeCheckpoint(id, () -> proceed(id));
        }

        private void proceed(long id) {
            history.add("  proceed " + id);
            check(
                    startedNotEnded.isEmpty(),
                    "checkpoint " + id + " proceeds while handover " + startedNotEnded + " runs");
            check(
                    announcedCheckpoints.contains(id),
                    "checkpoint " + id + " proceeds after its end");
            proceededNotEnded.add(id);
            everProceeded.add(id);
            // What the coordinator would snapshot.
            tableByCheckpoint.put(id, manager.routingTable());
        }

        private void endCheckpoint(boolean completed) {
            if (announcedCheckpoints.isEmpty()) {
                return;
            }
            List<Long> ids = List.copyOf(announcedCheckpoints);
            end(ids.get(random.nextInt(ids.size())), completed);
        }

        private void end(long id, boolean completed) {
            boolean proceeded = proceededNotEnded.remove(id);
            announcedCheckpoints.remove(id);
            if (!proceeded) {
                endedWhileDeferred.add(id);
            }
            if (proceeded && completed) {
                lastCheckpointedTable = tableByCheckpoint.get(id);
            }
            history.add(
                    "checkpointEnded "
                            + id
                            + (proceeded && completed ? " (completed)" : " (aborted)"));
            manager.checkpointEnded(id);
        }

        private void advanceTime(long millis) {
            history.add("advance " + millis + " ms");
            scheduler.advance(millis);
        }

        private void restart() {
            history.add(
                    "restart from " + lastCheckpointedTable + (jobFailing ? " after failJob" : ""));
            manager.onJobFailure(new RuntimeException("simulated failure"));
            // Flink aborts pending checkpoints; their notifications may or may not arrive.
            for (Long id : List.copyOf(announcedCheckpoints)) {
                if (!proceededNotEnded.contains(id)) {
                    endedWhileDeferred.add(id);
                }
                if (random.nextBoolean()) {
                    manager.checkpointEnded(id);
                }
            }
            announcedCheckpoints.clear();
            proceededNotEnded.clear();
            manager.resetTo(lastCheckpointedTable);
            expectedTable = lastCheckpointedTable;
            jobFailing = false;
        }

        // ------------------------------------------------------------ the port

        @Override
        public void sendToRouters(HandoverCommand command) {
            HandoverId id = command.handoverId();
            history.add("  command " + id + " " + command.plan());
            commandsSent++;
            check(
                    startedNotEnded.isEmpty(),
                    "command " + id + " while " + startedNotEnded + " runs");
            check(
                    proceededNotEnded.isEmpty(),
                    "command " + id + " while checkpoints " + proceededNotEnded + " are in flight");
            check(
                    command.plan().basedOnEpoch() == expectedTable.epoch(),
                    "command " + id + " for " + command.plan() + " but table is " + expectedTable);
            startedNotEnded.add(id);
            // Router acks and origin reports; installs follow the forwards.
            for (ProtocolEvent event :
                    ProtocolEvent.randomOrder(id, command.plan(), routers, random)) {
                if (!(event instanceof ProtocolEvent.TargetInstalled)) {
                    pending.add(event);
                }
            }
        }

        @Override
        public void sendToTarget(int targetSubtask, HandoverId id, List<ShippedVnode> vnodes) {
            history.add(
                    "  forward "
                            + id
                            + " -> "
                            + targetSubtask
                            + " "
                            + vnodes.stream().map(ShippedVnode::vnode).toList());
            check(startedNotEnded.contains(id), "forward for " + id + ", which is not running");
            for (ShippedVnode vnode : vnodes) {
                check(
                        vnode.toSubtask() == targetSubtask,
                        "forwarded " + vnode + " to " + targetSubtask);
                check(
                        Harness.payloadOf(id, vnode.vnode()).equals(vnode.payload()),
                        "payload of " + vnode);
            }
            List<Integer> numbers =
                    new ArrayList<>(vnodes.stream().map(ShippedVnode::vnode).toList());
            java.util.Collections.shuffle(numbers, random);
            int split = random.nextInt(numbers.size() + 1);
            if (split > 0) {
                pending.add(
                        new ProtocolEvent.TargetInstalled(
                                id, targetSubtask, Set.copyOf(numbers.subList(0, split))));
            }
            if (split < numbers.size()) {
                pending.add(
                        new ProtocolEvent.TargetInstalled(
                                id,
                                targetSubtask,
                                Set.copyOf(numbers.subList(split, numbers.size()))));
            }
        }

        @Override
        public void failJob(Throwable cause) {
            history.add("  failJob " + cause.getMessage());
            check(cause instanceof HandoverFailedException, "failJob with " + cause);
            jobFailing = true;
        }

        // ------------------------------------------------------------ checks and helpers

        private void checkInvariants() {
            assertThat(violations).as("violations").isEmpty();
            assertThat(manager.routingTable()).as("routing table").isEqualTo(expectedTable);
            assertThat(startedNotEnded)
                    .as("handovers started and not ended")
                    .hasSizeLessThanOrEqualTo(1);
            HandoverMetrics metrics = manager.metrics();
            assertThat(metrics.inFlight()).as("in flight").isEqualTo(!startedNotEnded.isEmpty());
            assertThat(metrics.started()).as("started").isEqualTo(commandsSent);
            assertThat(metrics.completed()).as("completed").isEqualTo(completedResults);
            long done = accepted.stream().filter(CompletableFuture::isDone).count();
            assertThat(metrics.completed() + metrics.failed()).as("ended").isEqualTo(done);
            assertThat(metrics.currentEpoch()).isEqualTo(expectedTable.epoch());
            manager.currentHandover()
                    .filter(HandoverStatus::queuedBehindCheckpoint)
                    .ifPresent(
                            queued ->
                                    assertThat(announcedCheckpoints)
                                            .as(
                                                    "a handover is queued, so a checkpoint is in flight")
                                            .isNotEmpty());
        }

        private void check(boolean condition, String violation) {
            if (!condition) {
                violations.add(violation);
            }
        }

        private HandoverPlan randomPlan() {
            int dice = random.nextInt(20);
            if (dice == 0) {
                return HandoverPlan.of(expectedTable.epoch() + 1, randomMoves(expectedTable, 1));
            }
            if (dice == 1) {
                return HandoverPlan.of(
                        expectedTable.epoch(),
                        List.of(
                                new VnodeMove(
                                        0, expectedTable.ownerOf(0), expectedTable.ownerOf(0))));
            }
            return HandoverPlan.of(
                    expectedTable.epoch(), randomMoves(expectedTable, 1 + random.nextInt(4)));
        }

        private List<VnodeMove> randomMoves(RoutingTable table, int count) {
            List<Integer> vnodes = new ArrayList<>();
            for (int v = 0; v < table.layout().numVnodes(); v++) {
                vnodes.add(v);
            }
            java.util.Collections.shuffle(vnodes, random);
            List<VnodeMove> moves = new ArrayList<>();
            for (int vnode : vnodes.subList(0, Math.min(count, vnodes.size()))) {
                int from = table.ownerOf(vnode);
                int to = (from + 1 + random.nextInt(table.parallelism() - 1)) % table.parallelism();
                moves.add(new VnodeMove(vnode, from, to));
            }
            return moves;
        }

        private static Throwable causeOf(CompletableFuture<?> failed) {
            try {
                failed.join();
                throw new AssertionError("not failed");
            } catch (CompletionException e) {
                return e.getCause();
            }
        }
    }
}
