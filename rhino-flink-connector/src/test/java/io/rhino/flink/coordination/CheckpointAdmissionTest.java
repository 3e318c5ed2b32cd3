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

package io.rhino.flink.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.core.handover.HandoverCommand;
import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverManagerOptions;
import io.rhino.handover.HandoverResult;
import io.rhino.handover.ShippedVnode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Both coordinators of an operator are admitted to a checkpoint together, by a real handover
 * manager: never while a handover runs, and a handover never starts between admission and the
 * checkpoint's end.
 */
class CheckpointAdmissionTest {

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<HandoverCommand> routerCommands = new ArrayList<>();
    private final HandoverManager manager =
            new HandoverManager(
                    "op",
                    RoutingTable.initial(new VnodeLayout(128, 4), 2, 2),
                    2,
                    new HandoverManager.ProtocolPort() {
                        @Override
                        public void sendToRouters(HandoverCommand command) {
                            routerCommands.add(command);
                        }

                        @Override
                        public void sendToTarget(
                                int targetSubtask, HandoverId id, List<ShippedVnode> vnodes) {}

                        @Override
                        public void failJob(Throwable cause) {}
                    },
                    HandoverManagerOptions.defaults(),
                    System::currentTimeMillis,
                    timer);
    private final CheckpointAdmission admission = new CheckpointAdmission();
    private final List<String> proceeded = new ArrayList<>();

    @AfterEach
    void stopTimer() {
        manager.close();
        timer.shutdownNow();
    }

    @Test
    void bothCoordinatorsWaitForTheRunningHandover() {
        CompletableFuture<HandoverResult> handover = startHandover();
        assertThat(routerCommands).as("commands sent before the checkpoint").hasSize(1);

        admission.whenAdmitted(1, manager, () -> proceeded.add("router"));
        admission.whenAdmitted(1, manager, () -> proceeded.add("gate"));
        assertThat(proceeded).as("no coordinator completes under a running handover").isEmpty();

        manager.onJobFailure(new IllegalStateException("handover ends"));
        assertThat(handover).isCompleted();
        assertThat(proceeded).containsExactly("router", "gate");
    }

    @Test
    void aHandoverRequestedAfterAdmissionWaitsUntilBothCoordinatorsTookTheirPart() {
        admission.whenAdmitted(1, manager, () -> proceeded.add("router"));
        assertThat(proceeded).containsExactly("router");

        startHandover();
        assertThat(routerCommands).as("queued behind checkpoint 1").isEmpty();
        admission.whenAdmitted(1, manager, () -> proceeded.add("gate"));
        assertThat(proceeded).as("the second coordinator joins the admission").hasSize(2);
        // both gateways are closed now: commands reach the subtasks after their snapshots
        assertThat(routerCommands).as("started once both coordinators took part").hasSize(1);

        // a savepoint is never notified as complete: nothing must wait for that
        admission.whenAdmitted(2, manager, () -> proceeded.add("router"));
        admission.whenAdmitted(2, manager, () -> proceeded.add("gate"));
        manager.onJobFailure(new IllegalStateException("ends the first handover"));
        startHandover();
        assertThat(routerCommands)
                .as("a handover after an un-notified checkpoint starts")
                .hasSize(2);
    }

    @Test
    void aCoordinatorAskingAfterTheCheckpointEndedProceedsWithoutBlockingHandovers() {
        admission.whenAdmitted(7, manager, () -> proceeded.add("gate"));
        admission.ended(7);
        manager.checkpointEnded(7);

        // the router coordinator is called only now, e.g. after an abort overtook it
        admission.whenAdmitted(7, manager, () -> proceeded.add("router"));
        assertThat(proceeded).containsExactly("gate", "router");

        startHandover();
        assertThat(routerCommands).as("no phantom checkpoint 7 holds handovers back").hasSize(1);
    }

    private CompletableFuture<HandoverResult> startHandover() {
        RoutingTable table = manager.routingTable();
        return manager.handover(List.of(new VnodeMove(0, table.ownerOf(0), 1 - table.ownerOf(0))));
    }
}
