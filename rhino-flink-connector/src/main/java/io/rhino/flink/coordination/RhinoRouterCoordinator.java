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

import io.rhino.flink.events.RouterAckEvent;
import io.rhino.flink.events.RouterFinishingEvent;
import io.rhino.flink.events.RouterLoadEvent;
import io.rhino.flink.events.RouterStartedEvent;
import io.rhino.flink.spec.RhinoOperatorSpec;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;

/**
 * Coordinator of a Rhino operator's routers: registers their gateways with the operator's hub so
 * the handover manager can command them, and passes their acks on. It keeps no state: the routing
 * table is checkpointed by the routers and by the gate coordinator.
 */
public final class RhinoRouterCoordinator implements OperatorCoordinator {

    private final Context context;
    private final RhinoOperatorSpec spec;
    private RhinoOperatorHub knownHub;

    private RhinoRouterCoordinator(Context context, RhinoOperatorSpec spec) {
        this.context = context;
        this.spec = spec;
        RhinoOperatorHub.routersRunAt(context, spec.name());
    }

    /**
     * Nothing to start: the gate coordinator creates the operator's hub when it starts, knowing the
     * gates' parallelism and the restored vnodes; subtasks report only once every coordinator ran.
     */
    @Override
    public void start() {}

    /** The operator's hub; null only before the gate coordinator started. */
    private RhinoOperatorHub hub() {
        if (knownHub == null) {
            knownHub = RhinoOperatorHub.find(context, spec.name());
        }
        return knownHub;
    }

    @Override
    public void close() {}

    @Override
    public void handleEventFromOperator(int subtask, int attemptNumber, OperatorEvent event) {
        if (event instanceof RouterAckEvent ack) {
            hub().existingManager()
                    .ifPresent(manager -> manager.onRouterAck(ack.handoverId(), subtask));
        } else if (event instanceof RouterStartedEvent started) {
            hub().routerStarted(subtask, attemptNumber, started.table());
        } else if (event instanceof RouterLoadEvent load) {
            hub().routerLoad(subtask, load.recordsByVnode(), load.periodMillis());
        } else if (event instanceof RouterFinishingEvent) {
            hub().routerFinishing(subtask);
        } else {
            throw new IllegalArgumentException("Unexpected event from a Rhino router: " + event);
        }
    }

    @Override
    public void checkpointCoordinator(long checkpointId, CompletableFuture<byte[]> result) {
        // Completing closes the routers' gateways until they took the checkpoint: wait, like the
        // gate coordinator, until no handover needs to command them (see CheckpointAdmission).
        hub().beforeCheckpoint(checkpointId, () -> result.complete(new byte[0]));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {}

    @Override
    public void resetToCheckpoint(long checkpointId, byte[] checkpointData) {
        RhinoOperatorHub hub = hub();
        if (hub != null) {
            hub.allGone("the job restores checkpoint " + checkpointId);
        }
    }

    @Override
    public void subtaskReset(int subtask, long checkpointId) {
        hub().routerGone(
                        subtask,
                        -1,
                        "router subtask " + subtask + " restarts from checkpoint " + checkpointId);
    }

    @Override
    public void executionAttemptFailed(int subtask, int attemptNumber, Throwable reason) {
        RhinoOperatorHub hub = hub();
        if (hub != null) {
            hub.routerGone(subtask, attemptNumber, hub.attemptEnded("router", subtask, reason));
        }
    }

    @Override
    public void executionAttemptReady(int subtask, int attemptNumber, SubtaskGateway gateway) {
        hub().routerReady(subtask, gateway);
    }

    /** Creates the coordinator. */
    public static final class Provider implements OperatorCoordinator.Provider {
        private static final long serialVersionUID = 1L;
        private final OperatorID operatorId;
        private final RhinoOperatorSpec spec;

        public Provider(OperatorID operatorId, RhinoOperatorSpec spec) {
            this.operatorId = operatorId;
            this.spec = spec;
        }

        @Override
        public OperatorID getOperatorId() {
            return operatorId;
        }

        @Override
        public OperatorCoordinator create(Context context) {
            return new RhinoRouterCoordinator(context, spec);
        }
    }
}
