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

package io.rhino.flink.reconfiguration;

import io.rhino.flink.replication.ReplicationProgress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * How an operator's checkpoints are replicated.
 *
 * @param mode {@code none} or {@code peers}
 * @param factor the copies of each checkpoint, the primary's included
 * @param chains the TaskManagers each gate subtask replicates to, in chain order
 * @param progress each gate subtask's last report, aged to now
 * @param fullStores TaskManagers left out of the chains because their replica store ran out of
 *     space recently
 */
public record ReplicationView(
        String mode,
        int factor,
        Map<Integer, List<String>> chains,
        Map<Integer, ReplicationProgress> progress,
        Set<String> fullStores) {

    public static final ReplicationView NONE =
            new ReplicationView("none", 1, Map.of(), Map.of(), Set.of());

    public ReplicationView {
        chains = Map.copyOf(chains);
        progress = Map.copyOf(progress);
        fullStores = java.util.Collections.unmodifiableSet(new TreeSet<>(fullStores));
    }
}
