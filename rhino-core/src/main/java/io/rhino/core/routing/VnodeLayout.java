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

package io.rhino.core.routing;

import java.io.InvalidObjectException;
import java.io.ObjectStreamException;
import java.io.Serializable;

/**
 * Groups an operator's key groups into virtual nodes (vnodes), the unit that Rhino moves between
 * subtasks.
 *
 * <p>Vnode {@code v} covers the contiguous key groups {@code [v*K/V, (v+1)*K/V - 1]} (integer
 * division), where {@code K} is the number of key groups and {@code V} the number of vnodes. Every
 * key group belongs to exactly one vnode and vnode sizes differ by at most one. With {@code K=128,
 * V=16}, vnode 3 covers key groups {@code [24-31]}.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class VnodeLayout implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int numKeyGroups;
    private final int numVnodes;

    /**
     * Creates a layout.
     *
     * @param numKeyGroups the operator's maximum parallelism, {@code 1..2^15}
     * @param numVnodes the number of vnodes, {@code 1..numKeyGroups}
     * @throws IllegalArgumentException if a value is out of range
     */
    public VnodeLayout(int numKeyGroups, int numVnodes) {
        if (numKeyGroups < 1 || numKeyGroups > KeyGroups.UPPER_BOUND_MAX_PARALLELISM) {
            throw new IllegalArgumentException(
                    "numKeyGroups: "
                            + numKeyGroups
                            + " (expected: 1.."
                            + KeyGroups.UPPER_BOUND_MAX_PARALLELISM
                            + ")");
        }
        // More vnodes than key groups would leave some vnodes empty.
        if (numVnodes < 1 || numVnodes > numKeyGroups) {
            throw new IllegalArgumentException(
                    "numVnodes: "
                            + numVnodes
                            + " (expected: 1..numKeyGroups="
                            + numKeyGroups
                            + ")");
        }
        this.numKeyGroups = numKeyGroups;
        this.numVnodes = numVnodes;
    }

    /** Returns the number of key groups, i.e. the operator's maximum parallelism. */
    public int numKeyGroups() {
        return numKeyGroups;
    }

    /** Returns the number of vnodes. */
    public int numVnodes() {
        return numVnodes;
    }

    /**
     * Returns the vnode that contains {@code keyGroup}, in O(1).
     *
     * @throws IllegalArgumentException if {@code keyGroup} is outside {@code 0..numKeyGroups-1}
     */
    public int vnodeOfKeyGroup(int keyGroup) {
        checkKeyGroup(keyGroup);
        // start(v) = floor(v*K/V) <= kg  <=>  v*K < (kg+1)*V  <=>  v <= ((kg+1)*V - 1) / K.
        // The vnode holding kg is the largest v whose start is <= kg; vnodes are never empty
        // because V <= K. Long arithmetic: (kg+1)*V reaches 2^30 and must not overflow.
        return (int) ((((long) keyGroup + 1) * numVnodes - 1) / numKeyGroups);
    }

    /**
     * Returns the key groups covered by {@code vnode}.
     *
     * @throws IllegalArgumentException if {@code vnode} is outside {@code 0..numVnodes-1}
     */
    public KeyGroupSpan keyGroupsOf(int vnode) {
        checkVnode(vnode);
        return new KeyGroupSpan(startKeyGroupOf(vnode), startKeyGroupOf(vnode + 1) - 1);
    }

    /**
     * Returns the vnode that holds {@code key}'s state, using Flink's key group assignment.
     *
     * @param key the record key, not null
     */
    public int vnodeOfKey(Object key) {
        return vnodeOfKeyGroup(KeyGroups.assignToKeyGroup(key, numKeyGroups));
    }

    /**
     * Checks that {@code vnode} exists in this layout.
     *
     * @throws IllegalArgumentException naming the vnode and the valid range otherwise
     */
    public void checkVnode(int vnode) {
        if (vnode < 0 || vnode >= numVnodes) {
            throw new IllegalArgumentException(
                    "vnode: " + vnode + " (expected: 0.." + (numVnodes - 1) + ")");
        }
    }

    /**
     * Checks that {@code keyGroup} exists in this layout.
     *
     * @throws IllegalArgumentException naming the key group and the valid range otherwise
     */
    public void checkKeyGroup(int keyGroup) {
        if (keyGroup < 0 || keyGroup >= numKeyGroups) {
            throw new IllegalArgumentException(
                    "keyGroup: " + keyGroup + " (expected: 0.." + (numKeyGroups - 1) + ")");
        }
    }

    /** First key group of {@code vnode}; {@code vnode == numVnodes} yields {@code numKeyGroups}. */
    private int startKeyGroupOf(int vnode) {
        return (int) ((long) vnode * numKeyGroups / numVnodes);
    }

    /** Re-validates deserialized fields, which bypass the constructor. */
    private Object readResolve() throws ObjectStreamException {
        try {
            return new VnodeLayout(numKeyGroups, numVnodes);
        } catch (IllegalArgumentException e) {
            InvalidObjectException invalid = new InvalidObjectException(e.getMessage());
            invalid.initCause(e);
            throw invalid;
        }
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof VnodeLayout)) {
            return false;
        }
        VnodeLayout that = (VnodeLayout) o;
        return numKeyGroups == that.numKeyGroups && numVnodes == that.numVnodes;
    }

    @Override
    public int hashCode() {
        return 31 * numKeyGroups + numVnodes;
    }

    @Override
    public String toString() {
        return "VnodeLayout{numKeyGroups=" + numKeyGroups + ", numVnodes=" + numVnodes + "}";
    }
}
