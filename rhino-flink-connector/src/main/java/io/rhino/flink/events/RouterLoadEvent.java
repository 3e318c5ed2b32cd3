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

import java.util.Arrays;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;

/**
 * Router subtask → coordinator, periodically: how many records it routed to each vnode in the
 * {@code periodMillis} since its last report.
 */
public record RouterLoadEvent(long[] recordsByVnode, long periodMillis) implements OperatorEvent {

    @Override
    public boolean equals(Object o) {
        return o instanceof RouterLoadEvent other
                && periodMillis == other.periodMillis
                && Arrays.equals(recordsByVnode, other.recordsByVnode);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(recordsByVnode) + Long.hashCode(periodMillis);
    }

    @Override
    public String toString() {
        return "RouterLoadEvent["
                + Arrays.toString(recordsByVnode)
                + " in "
                + periodMillis
                + " ms]";
    }
}
