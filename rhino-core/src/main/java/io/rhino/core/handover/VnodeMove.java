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

package io.rhino.core.handover;

import java.io.Serializable;

/**
 * Moves one vnode from its current owner to another subtask.
 *
 * <p>A move is only a description; whether it fits a routing table (vnode exists, {@code
 * fromSubtask} is the owner, {@code toSubtask} exists and differs) is checked by the routing table
 * ({@code RoutingTable.validate(plan)}), which can explain problems in terms of that table.
 *
 * @param vnode the vnode to move
 * @param fromSubtask the subtask that owns the vnode before the handover (the origin)
 * @param toSubtask the subtask that owns the vnode after the handover (the target)
 */
public record VnodeMove(int vnode, int fromSubtask, int toSubtask) implements Serializable {

    private static final long serialVersionUID = 1L;
}
