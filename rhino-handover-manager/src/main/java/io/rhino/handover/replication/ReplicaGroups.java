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

package io.rhino.handover.replication;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The replica group of each subtask of a Rhino operator (paper §5.3.2.2): the {@code factor - 1}
 * TaskManagers, other than the subtask's own, that keep a copy of its vnodes' checkpoints, nearest
 * first in the chain. Bin packing: subtasks are placed heaviest first (by state bytes), each copy
 * on the TaskManager holding the fewest replica bytes so far (then the fewest copies, then by
 * name); then copies move from the most to the least loaded TaskManager while that narrows the gap,
 * so replica bytes spread evenly over the TaskManagers. Pure and deterministic.
 */
public final class ReplicaGroups {

    private ReplicaGroups() {}

    /**
     * @param taskManagerBySubtask where each subtask runs
     * @param bytesBySubtask each subtask's state bytes (missing or negative counts as 1)
     * @param factor copies including the primary, {@code >= 1}
     * @return each subtask's chain of TaskManagers (fewer than {@code factor - 1} when there are
     *     not enough other TaskManagers)
     */
    public static Map<Integer, List<String>> assign(
            Map<Integer, String> taskManagerBySubtask,
            Map<Integer, Long> bytesBySubtask,
            int factor) {
        return assign(taskManagerBySubtask, bytesBySubtask, factor, Set.of());
    }

    /**
     * As {@link #assign(Map, Map, int)}, never placing a copy on an {@code excluded} TaskManager
     * (its subtasks still replicate to the others).
     */
    public static Map<Integer, List<String>> assign(
            Map<Integer, String> taskManagerBySubtask,
            Map<Integer, Long> bytesBySubtask,
            int factor,
            Set<String> excluded) {
        if (factor < 1) {
            throw new IllegalArgumentException("factor: " + factor + " (expected: >= 1)");
        }
        TreeSet<String> taskManagers = new TreeSet<>(taskManagerBySubtask.values());
        taskManagers.removeAll(excluded);
        Map<String, Long> replicaBytes = new HashMap<>();
        Map<String, Integer> replicaCount = new HashMap<>();
        taskManagers.forEach(
                tm -> {
                    replicaBytes.put(tm, 0L);
                    replicaCount.put(tm, 0);
                });
        List<Integer> heaviestFirst = new ArrayList<>(taskManagerBySubtask.keySet());
        heaviestFirst.sort(
                Comparator.comparingLong((Integer s) -> -weight(bytesBySubtask, s))
                        .thenComparingInt(s -> s));
        Map<Integer, List<String>> chains = new TreeMap<>();
        for (int subtask : heaviestFirst) {
            String own = taskManagerBySubtask.get(subtask);
            long weight = weight(bytesBySubtask, subtask);
            List<String> chain = new ArrayList<>();
            for (int copy = 1; copy < factor; copy++) {
                String best = null;
                for (String candidate : taskManagers) {
                    if (candidate.equals(own) || chain.contains(candidate)) {
                        continue;
                    }
                    if (best == null || lighter(candidate, best, replicaBytes, replicaCount)) {
                        best = candidate;
                    }
                }
                if (best == null) {
                    break; // fewer TaskManagers than copies
                }
                chain.add(best);
                replicaBytes.merge(best, weight, Long::sum);
                replicaCount.merge(best, 1, Integer::sum);
            }
            chains.put(subtask, chain);
        }
        evenOut(chains, taskManagerBySubtask, bytesBySubtask, replicaBytes, replicaCount);
        return chains;
    }

    /**
     * Greedy placement can leave a TaskManager without copies that another has two of (the last
     * subtasks find only loaded candidates), so copies move from the most to the least loaded
     * TaskManager while a move narrows the gap.
     */
    private static void evenOut(
            Map<Integer, List<String>> chains,
            Map<Integer, String> taskManagerBySubtask,
            Map<Integer, Long> bytesBySubtask,
            Map<String, Long> replicaBytes,
            Map<String, Integer> replicaCount) {
        for (int round = 0; round < chains.size() * replicaBytes.size(); round++) {
            String most = null;
            String least = null;
            for (String tm : replicaBytes.keySet()) {
                if (most == null || lighter(most, tm, replicaBytes, replicaCount)) {
                    most = tm;
                }
                if (least == null || lighter(tm, least, replicaBytes, replicaCount)) {
                    least = tm;
                }
            }
            long gap = replicaBytes.get(most) - replicaBytes.get(least);
            Integer moved = null;
            for (Map.Entry<Integer, List<String>> chain : chains.entrySet()) {
                int subtask = chain.getKey();
                long weight = weight(bytesBySubtask, subtask);
                if (chain.getValue().contains(most)
                        && !chain.getValue().contains(least)
                        && !least.equals(taskManagerBySubtask.get(subtask))
                        && weight < gap) {
                    moved = subtask;
                    break;
                }
            }
            if (moved == null) {
                return;
            }
            List<String> chain = chains.get(moved);
            chain.set(chain.indexOf(most), least);
            long weight = weight(bytesBySubtask, moved);
            replicaBytes.merge(most, -weight, Long::sum);
            replicaBytes.merge(least, weight, Long::sum);
            replicaCount.merge(most, -1, Integer::sum);
            replicaCount.merge(least, 1, Integer::sum);
        }
    }

    private static boolean lighter(
            String candidate, String best, Map<String, Long> bytes, Map<String, Integer> count) {
        int byBytes = Long.compare(bytes.get(candidate), bytes.get(best));
        if (byBytes != 0) {
            return byBytes < 0;
        }
        int byCount = Integer.compare(count.get(candidate), count.get(best));
        return byCount != 0 ? byCount < 0 : candidate.compareTo(best) < 0;
    }

    private static long weight(Map<Integer, Long> bytesBySubtask, int subtask) {
        long bytes = bytesBySubtask.getOrDefault(subtask, 1L);
        return bytes < 0 ? 1 : Math.max(1, bytes);
    }
}
