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

package io.rhino.flink.events;

import io.rhino.core.handover.HandoverId;
import io.rhino.handover.ShippedVnode;
import java.util.List;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;

/**
 * Origin gate → coordinator: aligned on every router's marker and shipped these of its outgoing
 * vnodes; here is where to install them from. An origin sends one per vnode as each is shipped, so
 * that targets start installing before the origin's last vnode is out.
 *
 * @param alignMillis from the first marker to the last one at this origin
 * @param exportMillis from the start of the origin's shipments until these vnodes were shipped
 * @param copiedBytes bytes the export copied (the delta since the last checkpoint)
 * @param sentBytes bytes sent to other TaskManagers (what they did not hold of the vnodes)
 */
public record OriginShippedEvent(
        HandoverId handoverId,
        List<ShippedVnode> vnodes,
        long alignMillis,
        long exportMillis,
        long copiedBytes,
        long sentBytes)
        implements OperatorEvent {}
