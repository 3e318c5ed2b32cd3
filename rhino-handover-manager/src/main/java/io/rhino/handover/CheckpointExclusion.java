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

package io.rhino.handover;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Keeps handovers and checkpoints of one operator apart (design §3.4): a checkpoint requested while
 * a handover runs is deferred until the handover ends; a handover may only start when no checkpoint
 * is in flight. Checkpoints win ties, so a stream of handover requests cannot starve them.
 *
 * <p>Decides only; the caller runs the returned {@code proceed}s. Not thread-safe: guarded by the
 * manager's lock.
 */
final class CheckpointExclusion {

    /** Who holds the operator. */
    enum State {
        /** Neither a handover nor a checkpoint is in flight. */
        IDLE,
        /** A handover has started and not ended; checkpoints are deferred. */
        HANDOVER_RUNNING,
        /** At least one checkpoint is in flight; no handover may start. */
        CHECKPOINTING
    }

    private State state = State.IDLE;
    private final TreeSet<Long> checkpointsInFlight = new TreeSet<>();
    private final LinkedHashMap<Long, Runnable> deferredProceedByCheckpoint = new LinkedHashMap<>();

    State state() {
        return state;
    }

    boolean mayStartHandover() {
        return state == State.IDLE;
    }

    /** Returns the oldest checkpoint in flight, if any. */
    Optional<Long> oldestCheckpointInFlight() {
        return checkpointsInFlight.isEmpty()
                ? Optional.empty()
                : Optional.of(checkpointsInFlight.first());
    }

    /**
     * Records that a handover starts.
     *
     * @throws IllegalStateException naming the current state unless it is IDLE
     */
    void handoverStarted() {
        if (state != State.IDLE) {
            throw new IllegalStateException(
                    "cannot start a handover in state "
                            + state
                            + " (checkpoints in flight: "
                            + checkpointsInFlight
                            + ", deferred: "
                            + deferredProceedByCheckpoint.keySet()
                            + ")");
        }
        state = State.HANDOVER_RUNNING;
    }

    /**
     * Records that a handover ended and releases the checkpoints deferred behind it.
     *
     * @return the released checkpoints' {@code proceed}s, in request order, for the caller to run
     * @throws IllegalStateException naming the current state unless it is HANDOVER_RUNNING
     */
    List<Runnable> handoverEnded() {
        if (state != State.HANDOVER_RUNNING) {
            throw new IllegalStateException("cannot end a handover in state " + state);
        }
        if (deferredProceedByCheckpoint.isEmpty()) {
            state = State.IDLE;
            return List.of();
        }
        List<Runnable> released = new ArrayList<>(deferredProceedByCheckpoint.values());
        checkpointsInFlight.addAll(deferredProceedByCheckpoint.keySet());
        deferredProceedByCheckpoint.clear();
        state = State.CHECKPOINTING;
        return released;
    }

    /**
     * Records that a checkpoint wants to begin.
     *
     * @return {@code proceed} if the checkpoint may begin now, or empty if it was deferred until
     *     the running handover ends
     * @throws IllegalArgumentException if the checkpoint is already in flight or deferred
     */
    Optional<Runnable> checkpointRequested(long checkpointId, Runnable proceed) {
        Objects.requireNonNull(proceed, "proceed: null (expected: a Runnable)");
        if (checkpointsInFlight.contains(checkpointId)
                || deferredProceedByCheckpoint.containsKey(checkpointId)) {
            throw new IllegalArgumentException(
                    "checkpointId: "
                            + checkpointId
                            + " (expected: a checkpoint that is not already in flight or deferred)");
        }
        if (state == State.HANDOVER_RUNNING) {
            deferredProceedByCheckpoint.put(checkpointId, proceed);
            return Optional.empty();
        }
        checkpointsInFlight.add(checkpointId);
        state = State.CHECKPOINTING;
        return Optional.of(proceed);
    }

    /** What {@link #checkpointEnded} did. */
    enum CheckpointEnd {
        /** The checkpoint was in flight and is now over. */
        ENDED,
        /** The checkpoint was still deferred; its {@code proceed} will never run. */
        DROPPED_WHILE_DEFERRED,
        /** The checkpoint was neither in flight nor deferred. */
        UNKNOWN
    }

    /** Records that a checkpoint completed or was aborted. */
    CheckpointEnd checkpointEnded(long checkpointId) {
        if (deferredProceedByCheckpoint.remove(checkpointId) != null) {
            return CheckpointEnd.DROPPED_WHILE_DEFERRED;
        }
        if (!checkpointsInFlight.remove(checkpointId)) {
            return CheckpointEnd.UNKNOWN;
        }
        if (checkpointsInFlight.isEmpty() && state == State.CHECKPOINTING) {
            state = State.IDLE;
        }
        return CheckpointEnd.ENDED;
    }

    /**
     * Forgets every checkpoint, e.g. after the job restored a checkpoint: their notifications may
     * never come.
     *
     * @throws IllegalStateException naming the current state if a handover is running
     */
    void reset() {
        if (state == State.HANDOVER_RUNNING) {
            throw new IllegalStateException(
                    "cannot forget checkpoints in state " + state + "; end the handover first");
        }
        checkpointsInFlight.clear();
        deferredProceedByCheckpoint.clear();
        state = State.IDLE;
    }

    @Override
    public String toString() {
        return "CheckpointExclusion{state="
                + state
                + ", inFlight="
                + checkpointsInFlight
                + ", deferred="
                + deferredProceedByCheckpoint.keySet()
                + "}";
    }
}
