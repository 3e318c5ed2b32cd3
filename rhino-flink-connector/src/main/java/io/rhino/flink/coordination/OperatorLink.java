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

import io.rhino.core.handover.HandoverCommand;
import io.rhino.core.handover.HandoverId;
import io.rhino.flink.events.InstallVnodesEvent;
import io.rhino.flink.events.RouterCommandEvent;
import io.rhino.handover.CommandNotDeliveredException;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.ShippedVnode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator.SubtaskGateway;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The handover manager's port to one Rhino operator's running subtasks: its commands to every
 * router, shipped vnodes to their target gate, and its request to fail the job.
 *
 * <p>Any thread: the manager runs its actions on whichever thread drives it (the JobManager's main
 * thread, the operator's timer, REST and user threads). So the gateways are concurrent maps and the
 * flags volatile, and nothing here takes the hub's monitor, which the hub holds while it calls the
 * manager.
 */
final class OperatorLink implements HandoverManager.ProtocolPort {

    private static final Logger LOG = LoggerFactory.getLogger(OperatorLink.class);

    private final String operatorName;
    private final int routerParallelism;
    private final Map<Integer, SubtaskGateway> routers = new ConcurrentHashMap<>();
    private final Map<Integer, SubtaskGateway> gates = new ConcurrentHashMap<>();
    private volatile OperatorCoordinator.Context gateContext;
    private volatile boolean failingOver;

    OperatorLink(String operatorName, int routerParallelism) {
        this.operatorName = operatorName;
        this.routerParallelism = routerParallelism;
    }

    void routerReady(int subtask, SubtaskGateway gateway) {
        routers.put(subtask, gateway);
    }

    void routerGone(int subtask) {
        routers.remove(subtask);
    }

    void gateReady(int subtask, SubtaskGateway gateway) {
        gates.put(subtask, gateway);
    }

    void gateGone(int subtask) {
        gates.remove(subtask);
    }

    /** The gate coordinator (re)started: the job is failed through its context. */
    void gateCoordinatorStarted(OperatorCoordinator.Context context) {
        this.gateContext = context;
    }

    /** Sends {@code event} to the gate subtask if it runs. */
    void sendToGate(int subtask, OperatorEvent event) {
        SubtaskGateway gate = gates.get(subtask);
        if (gate != null) {
            gate.sendEvent(event);
        }
    }

    /**
     * Sends the command to every router, or to none: if one is not running, nothing is sent and the
     * handover fails without restarting the job.
     */
    @Override
    public void sendToRouters(HandoverCommand command) {
        List<SubtaskGateway> targets = new ArrayList<>(routerParallelism);
        for (int subtask = 0; subtask < routerParallelism; subtask++) {
            SubtaskGateway router = routers.get(subtask);
            if (router == null) {
                throw new CommandNotDeliveredException(
                        "Router subtask "
                                + subtask
                                + " of Rhino operator '"
                                + operatorName
                                + "' is not running; nothing was sent, retry once the job runs");
            }
            targets.add(router);
        }
        for (SubtaskGateway router : targets) {
            router.sendEvent(new RouterCommandEvent(command));
        }
    }

    @Override
    public void sendToTarget(int targetSubtask, HandoverId id, List<ShippedVnode> vnodes) {
        SubtaskGateway gate = gates.get(targetSubtask);
        if (gate == null) {
            throw new IllegalStateException(
                    "Gate subtask "
                            + targetSubtask
                            + " of Rhino operator '"
                            + operatorName
                            + "' is not running.");
        }
        gate.sendEvent(new InstallVnodesEvent(id, vnodes))
                .whenComplete(
                        (ack, failure) -> {
                            if (failure != null) {
                                LOG.warn(
                                        "Could not send vnodes of handover {} to gate {} of '{}'",
                                        id,
                                        targetSubtask,
                                        operatorName,
                                        failure);
                            }
                        });
    }

    @Override
    public void failJob(Throwable cause) {
        failingOver = true;
        OperatorCoordinator.Context context = gateContext;
        if (context != null) {
            context.failJob(cause);
        }
    }

    /** Between asking Flink to restart the job and the restore: no checkpoint may complete. */
    boolean isFailingOver() {
        return failingOver;
    }

    /** The job restored a checkpoint. */
    void failoverDone() {
        failingOver = false;
    }
}
