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

import io.rhino.handover.HandoverManager;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Admits a checkpoint to both coordinators of a Rhino operator together, once its handover manager
 * lets it begin.
 *
 * <p>Why both: Flink holds back every event a coordinator sends to its subtasks from the moment
 * that coordinator completes its part of a checkpoint until the subtasks have taken the checkpoint.
 * If the router coordinator completed at once while a handover was starting, the handover's
 * commands to the routers would wait for a checkpoint that itself waits for the handover (the gate
 * coordinator defers it): a deadlock until the handover timed out. So the router coordinator's part
 * waits for the same admission as the gate coordinator's.
 *
 * <p>The first coordinator to ask for a checkpoint asks the manager; the second joins it. A
 * coordinator asking for a checkpoint that already ended (it was aborted before this coordinator
 * was called) proceeds at once without telling the manager, which would otherwise wait forever for
 * that checkpoint's end.
 *
 * <p>Once both coordinators have proceeded, handovers may start again ({@link
 * HandoverManager#checkpointTaken}): Flink closes a coordinator's subtask gateways when its part
 * completes and holds every event until the subtask has taken the checkpoint, so a handover's
 * commands and installs reach every subtask after its snapshot. Waiting for the checkpoint's
 * completion instead would block handovers for the whole asynchronous upload, and forever after a
 * savepoint, which Flink never notifies as complete.
 */
final class CheckpointAdmission {

    /** How many ended checkpoint ids to remember for late askers. */
    private static final int REMEMBERED_ENDS = 64;

    /** The router's and the gate's coordinator. */
    static final int COORDINATORS = 2;

    private final Map<Long, List<Runnable>> waitingByCheckpoint = new HashMap<>();
    private final Map<Long, Integer> proceededByCheckpoint = new HashMap<>();
    private final Set<Long> admitted = new HashSet<>();
    private final Set<Long> ended = new HashSet<>();
    private final ArrayDeque<Long> endOrder = new ArrayDeque<>();

    /**
     * Runs {@code proceed} once {@code manager} admits checkpoint {@code checkpointId}: at once if
     * it was admitted or has ended, else when the running handover ends.
     */
    void whenAdmitted(long checkpointId, HandoverManager manager, Runnable proceed) {
        boolean askManager;
        synchronized (this) {
            if (admitted.contains(checkpointId) || ended.contains(checkpointId)) {
                askManager = false;
            } else {
                List<Runnable> waiting = waitingByCheckpoint.get(checkpointId);
                askManager = waiting == null;
                if (askManager) {
                    waiting = new ArrayList<>();
                    waitingByCheckpoint.put(checkpointId, waiting);
                }
                waiting.add(proceed);
                proceed = null;
            }
        }
        if (proceed != null) {
            proceed.run();
            proceeded(checkpointId, 1, manager);
        } else if (askManager) {
            // outside the lock: the manager may admit at once, on this thread
            manager.beforeCheckpoint(checkpointId, () -> admit(checkpointId, manager));
        }
    }

    private void admit(long checkpointId, HandoverManager manager) {
        List<Runnable> waiting;
        synchronized (this) {
            admitted.add(checkpointId);
            waiting = waitingByCheckpoint.remove(checkpointId);
        }
        if (waiting != null) {
            waiting.forEach(Runnable::run);
            proceeded(checkpointId, waiting.size(), manager);
        }
    }

    /** Counts coordinators that completed their part; lets handovers go once both did. */
    private void proceeded(long checkpointId, int count, HandoverManager manager) {
        boolean bothDone;
        synchronized (this) {
            if (ended.contains(checkpointId)) {
                return; // a late asker: the manager already forgot the checkpoint
            }
            int done = proceededByCheckpoint.merge(checkpointId, count, Integer::sum);
            bothDone = done >= COORDINATORS;
            if (bothDone) {
                proceededByCheckpoint.remove(checkpointId);
            }
        }
        if (bothDone) {
            manager.checkpointTaken(checkpointId);
        }
    }

    /** The checkpoint completed or was aborted. */
    synchronized void ended(long checkpointId) {
        admitted.remove(checkpointId);
        waitingByCheckpoint.remove(checkpointId);
        proceededByCheckpoint.remove(checkpointId);
        if (ended.add(checkpointId)) {
            endOrder.addLast(checkpointId);
            if (endOrder.size() > REMEMBERED_ENDS) {
                ended.remove(endOrder.removeFirst());
            }
        }
    }

    /** The job restored a checkpoint: no checkpoint in flight will be heard of again. */
    synchronized void reset() {
        waitingByCheckpoint.clear();
        admitted.clear();
        proceededByCheckpoint.clear();
    }
}
