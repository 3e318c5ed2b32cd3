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

package io.rhino.flink.routing;

import io.rhino.flink.events.OriginShippedEvent;
import io.rhino.flink.handover.StateTransfer;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import io.rhino.handover.ShippedVnode;
import java.util.List;
import java.util.function.Supplier;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.operators.coordination.OperatorEventGateway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The origin's side of a handover once aligned: ships the outgoing vnodes, tells the coordinator of
 * each as soon as it is shipped, and drops them. On the task thread.
 */
final class GateShipper {

    private static final Logger LOG = LoggerFactory.getLogger(GateShipper.class);

    private final String operator;
    private final int subtask;
    private final Supplier<VnodeKeyedStateBackend<?>> backends;
    private final VnodeTransfers transfers;
    private final StateTransfer transfer;
    private final OperatorEventGateway coordinator;
    private final Counter bytesSent;

    GateShipper(
            String operator,
            int subtask,
            Supplier<VnodeKeyedStateBackend<?>> backends,
            VnodeTransfers transfers,
            StateTransfer transfer,
            OperatorEventGateway coordinator,
            Counter bytesSent) {
        this.operator = operator;
        this.subtask = subtask;
        this.backends = backends;
        this.transfers = transfers;
        this.transfer = transfer;
        this.coordinator = coordinator;
        this.bytesSent = bytesSent;
    }

    void ship(GateHandover handover) throws Exception {
        LOG.debug("{} gate {} ships {}", operator, subtask, handover.outgoing());
        long alignMillis = handover.millisSinceFirstMarker();
        long start = System.nanoTime();
        VnodeKeyedStateBackend<?> backend = backends.get();
        long[] copiedAndSent = new long[2];
        // Each vnode is reported as soon as it is shipped, so that its target opens it while the
        // others still ship. The exports are complete and independent of the origin's instances.
        transfers.ship(
                backend,
                List.copyOf(handover.outgoing()),
                handover::targetOf,
                handover.id(),
                transfer,
                (vnode, shipment) -> {
                    bytesSent.inc(shipment.sentBytes());
                    copiedAndSent[0] += shipment.copiedBytes();
                    copiedAndSent[1] += shipment.sentBytes();
                    coordinator.sendEventToCoordinator(
                            new OriginShippedEvent(
                                    handover.id(),
                                    List.of(
                                            new ShippedVnode(
                                                    vnode,
                                                    subtask,
                                                    handover.targetOf(vnode),
                                                    shipment.payload())),
                                    alignMillis,
                                    (System.nanoTime() - start) / 1_000_000,
                                    shipment.copiedBytes(),
                                    shipment.sentBytes()));
                });
        handover.markShipped();
        LOG.info(
                "{} gate {} shipped vnodes {} of handover {} in {} ms ({} ms after its first"
                        + " marker), copying {} bytes (the rest hard-linked) and sending {} bytes"
                        + " to other TaskManagers",
                operator,
                subtask,
                handover.outgoing(),
                handover.id(),
                (System.nanoTime() - start) / 1_000_000,
                alignMillis,
                copiedAndSent[0],
                copiedAndSent[1]);
        // Closing a RocksDB instance waits for its running compactions, which grows with the
        // state: only now, while the targets already install.
        for (int vnode : handover.outgoing()) {
            backend.removeVnode(vnode);
        }
    }
}
