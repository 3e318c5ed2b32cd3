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

package io.rhino.handover.policy;

import java.util.HashMap;
import java.util.Map;

/**
 * Vnode loads in task time instead of records: each vnode's record rate times what a record costs
 * on the subtask that owns it, that subtask's busy time (Flink's {@code busyTimeMsPerSecond}) over
 * its record rate. Where records cost the same everywhere this changes no decision; where one
 * subtask's records cost more (heavier keys, larger state, a slower machine), its vnodes weigh
 * more, so a rebalance relieves the subtask that is short of time, not only the one with most
 * records.
 *
 * <p>Busy time is a useful measure only where a task is busy: at low utilisation it is mostly fixed
 * per-task work (timers, checkpoints, flushes), and dividing it by few records gives noise. So the
 * weights apply only when every active subtask reported its busy time and the busiest is at least
 * {@link #MIN_BUSY_MS_PER_SECOND}; otherwise the model keeps its record rates. Pure.
 */
public final class BusyTimeWeighting {

    /** The busiest subtask's busy time from which loads are weighed: a tenth of its time. */
    public static final double MIN_BUSY_MS_PER_SECOND = 100;

    private BusyTimeWeighting() {}

    /**
     * @param model loads in records per second
     * @param busyMsPerSecondBySubtask each reporting subtask's busy time, 0..1000 ms per second
     * @return the model with loads in busy milliseconds per second, or {@code model} itself when
     *     busy time cannot weigh it (see the class comment)
     */
    public static ClusterModel weigh(
            ClusterModel model, Map<Integer, Double> busyMsPerSecondBySubtask) {
        double[] records = model.loadBySubtask();
        double busiest = 0;
        for (int subtask : model.activeSubtasks()) {
            Double busy = busyMsPerSecondBySubtask.get(subtask);
            if (busy == null || !(busy >= 0) || !(records[subtask] > 0)) {
                return model;
            }
            busiest = Math.max(busiest, busy);
        }
        if (busiest < MIN_BUSY_MS_PER_SECOND) {
            return model;
        }
        Map<Integer, Double> weighed = new HashMap<>();
        int[] owners = model.table().ownerByVnode();
        for (int vnode = 0; vnode < owners.length; vnode++) {
            int owner = owners[vnode];
            double costPerRecord = busyMsPerSecondBySubtask.get(owner) / records[owner];
            weighed.put(vnode, model.loadOf(vnode) * costPerRecord);
        }
        return new ClusterModel(
                model.table(),
                weighed,
                model.taskManagerBySubtask(),
                model.replicaHoldersByVnode());
    }
}
