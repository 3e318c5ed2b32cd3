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

import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.IdleManagers;
import io.rhino.handover.HandoverManager;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The manager follows the subtasks' attempts: refused handovers from its start and after any
 * attempt ended, accepted at the routers' table once every subtask runs its current attempt.
 */
class SubtaskAttemptsTest {

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final RoutingTable initial = RoutingTable.initial(new VnodeLayout(128, 4), 2, 2);
    private final HandoverManager manager =
            IdleManagers.manager("op", initial, 1, System::currentTimeMillis, timer);
    private final SubtaskAttempts attempts = new SubtaskAttempts("op", 1, 2);

    @AfterEach
    void stopTimer() {
        manager.close();
        timer.shutdownNow();
    }

    @Test
    void attemptsBeforeTheManagerAreCountedAndItResumesAtOnceIfAllRun() {
        assertThat(attempts.routerStarted(0, 0, initial)).isFalse();
        assertThat(attempts.gateStarted(0, 0)).isFalse();
        assertThat(attempts.gateStarted(1, 0)).as("no manager to resume yet").isFalse();

        assertThat(attempts.managerStarted(manager)).isTrue();
        assertThat(manager.suspension()).isEmpty();
    }

    @Test
    void theManagerWaitsForEverySubtaskAndAgainAfterAnAttemptEnded() {
        assertThat(attempts.managerStarted(manager)).isFalse();
        assertThat(manager.suspension()).hasValue("starting; waiting for router 0, gate 0, gate 1");

        attempts.routerStarted(0, 0, initial);
        assertThat(attempts.gateStarted(0, 0)).isFalse();
        assertThat(attempts.gateStarted(1, 0)).isTrue();
        assertThat(manager.suspension()).isEmpty();

        attempts.gateGone(1, 0, attempts.attemptEnded("gate", 1, new IllegalStateException("x")));
        assertThat(manager.suspension())
                .hasValue("gate subtask 1 failed: java.lang.IllegalStateException: x");
        assertThat(attempts.gateStarted(1, 0)).as("a report of the failed attempt").isFalse();
        assertThat(attempts.gateStarted(1, 1)).isTrue();
        assertThat(manager.suspension()).isEmpty();
        assertThat(attempts.attemptEnded("gate", 0, null))
                .as("the failover ended with the resumption")
                .endsWith("(after a task of another operator failed) or was cancelled");
    }
}
