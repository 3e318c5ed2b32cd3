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

package io.rhino.flink.state;

import io.rhino.core.routing.VnodeLayout;
import java.util.BitSet;

/**
 * The vnodes a subtask's Rhino backend restored, as restored: what Flink's recovery filter of
 * in-flight records reads on the task's thread ({@link
 * RhinoTaskRegistry#restoredVnodesOfThisTask}). A copy, so that a handover that starts while the
 * task still replays its in-flight records cannot change which gate keeps one.
 */
public final class RestoredVnodes {

    private final VnodeLayout layout;
    private final int subtask;
    private final BitSet owned;

    RestoredVnodes(VnodeLayout layout, int subtask, int[] ownedVnodes) {
        this.layout = layout;
        this.subtask = subtask;
        this.owned = new BitSet(layout.numVnodes());
        for (int vnode : ownedVnodes) {
            owned.set(vnode);
        }
    }

    /** The vnodes' layout: the count can differ from the job's (see {@link RhinoTaskRegistry}). */
    public VnodeLayout layout() {
        return layout;
    }

    /** The index of the subtask that restored them. */
    public int subtask() {
        return subtask;
    }

    /** Whether the subtask restored {@code vnode}. */
    public boolean owns(int vnode) {
        return owned.get(vnode);
    }
}
