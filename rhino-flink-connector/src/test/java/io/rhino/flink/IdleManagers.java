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

package io.rhino.flink;

import io.rhino.core.handover.HandoverCommand;
import io.rhino.core.handover.HandoverId;
import io.rhino.core.routing.RoutingTable;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverManagerOptions;
import io.rhino.handover.ShippedVnode;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/** Real handover managers whose commands go nowhere: a handover stays in its first phase. */
public final class IdleManagers {

    private IdleManagers() {}

    public static HandoverManager manager(
            String operator,
            RoutingTable table,
            int routers,
            LongSupplier clock,
            ScheduledExecutorService timer) {
        return new HandoverManager(
                operator,
                table,
                routers,
                new HandoverManager.ProtocolPort() {
                    @Override
                    public void sendToRouters(HandoverCommand command) {}

                    @Override
                    public void sendToTarget(
                            int targetSubtask, HandoverId id, List<ShippedVnode> vnodes) {}

                    @Override
                    public void failJob(Throwable cause) {}
                },
                HandoverManagerOptions.defaults(),
                clock,
                timer);
    }
}
