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

import io.rhino.flink.api.rest.RestServing;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.handover.HandoverManager;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.operators.coordination.MockOperatorCoordinatorContext;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator;
import org.junit.jupiter.api.Test;

/**
 * Flink reports a subtask attempt it cancels (its region restarts after another task failed) with
 * no reason: the operator says it was cancelled, and after what, not "failed: null".
 */
class CancelledAttemptTest {

    @Test
    void anAttemptCancelledByAFailoverIsNamedAfterTheFailureThatCausedIt() throws Exception {
        MockOperatorCoordinatorContext context =
                new MockOperatorCoordinatorContext(new OperatorID(), 3);
        RhinoOperatorSpec spec = new RhinoOperatorSpec("cancelled-after", 128, 6, 3, 3);
        OperatorCoordinator gates = startedGates(context, spec);
        try {
            HandoverManager manager = manager(context, spec);

            gates.executionAttemptFailed(0, 0, new IllegalStateException("disk gone"));
            gates.executionAttemptFailed(2, 0, null);

            assertThat(manager.suspension())
                    .hasValueSatisfying(
                            reason ->
                                    assertThat(reason)
                                            .doesNotContain("null")
                                            .contains(
                                                    "gate subtask 2 was cancelled while the job"
                                                            + " failed over after gate subtask 0"
                                                            + " failed:"
                                                            + " java.lang.IllegalStateException:"
                                                            + " disk gone"));
        } finally {
            gates.close();
        }
    }

    @Test
    void anAttemptCancelledWithoutAFailureSeenHereSaysSo() throws Exception {
        MockOperatorCoordinatorContext context =
                new MockOperatorCoordinatorContext(new OperatorID(), 3);
        RhinoOperatorSpec spec = new RhinoOperatorSpec("cancelled-alone", 128, 6, 3, 3);
        OperatorCoordinator gates = startedGates(context, spec);
        try {
            gates.executionAttemptFailed(1, 0, null);
            assertThat(manager(context, spec).suspension())
                    .hasValue(
                            "gate subtask 1 was cancelled while the job failed over (after a task"
                                    + " of another operator failed) or was cancelled");
        } finally {
            gates.close();
        }
    }

    /** The gate coordinator of {@code spec}, started, with its operator's hub and manager. */
    private static OperatorCoordinator startedGates(
            MockOperatorCoordinatorContext context, RhinoOperatorSpec spec) throws Exception {
        OperatorCoordinator gates =
                new RhinoGateCoordinator.Provider(
                                context.getOperatorId(), spec, 1, settings(), new RestServing())
                        .create(context);
        gates.start();
        return gates;
    }

    private static HandoverManager manager(
            MockOperatorCoordinatorContext context, RhinoOperatorSpec spec) {
        return RhinoOperatorHub.of(context, spec, 1).existingManager().orElseThrow();
    }

    private static RhinoRuntimeSettings settings() {
        Configuration config = new Configuration();
        config.set(RhinoOptions.REST_ENABLED, false);
        return RhinoRuntimeSettings.from(config, Duration.ofSeconds(60));
    }
}
