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

import io.rhino.core.routing.RoutingTable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Whether every router and gate subtask of a Rhino operator runs its current attempt, and which
 * routing table the routers restored.
 *
 * <p>After any restore (region or global failover, JobManager failover, restore from a checkpoint
 * or a savepoint) routers route by the table in their restored state, and gates own the vnodes in
 * their restored manifests, both from the same checkpoint. The handover manager may hold a newer
 * table (a handover completed after that checkpoint); it must adopt the routers' table before it
 * plans anything. So the operator counts as running only when every router has reported its table
 * and every gate has started, each from an attempt newer than the last one that failed or was
 * reset.
 *
 * <p>Not thread-safe: the coordinators call it from the JobManager's main thread.
 */
final class SubtaskRecovery {

    private record RouterReport(int attempt, RoutingTable table) {}

    private final int routers;
    private final int gates;
    private final TreeMap<Integer, RouterReport> routerReports = new TreeMap<>();
    private final TreeMap<Integer, Integer> gateAttempts = new TreeMap<>();
    // Reports from attempts below these are from before a failure or reset, and stale.
    private final int[] firstRouterAttempt;
    private final int[] firstGateAttempt;

    SubtaskRecovery(int routers, int gates) {
        this.routers = routers;
        this.gates = gates;
        this.firstRouterAttempt = new int[routers];
        this.firstGateAttempt = new int[gates];
    }

    /** A router attempt opened, routing by {@code table}; stale attempts are ignored. */
    void routerStarted(int subtask, int attempt, RoutingTable table) {
        if (subtask < routers && attempt >= firstRouterAttempt[subtask]) {
            routerReports.put(subtask, new RouterReport(attempt, table));
        }
    }

    /** A gate attempt opened; stale attempts are ignored. */
    void gateStarted(int subtask, int attempt) {
        if (subtask < gates && attempt >= firstGateAttempt[subtask]) {
            gateAttempts.put(subtask, attempt);
        }
    }

    /** A router attempt failed ({@code attempt} known) or was reset ({@code attempt} = -1). */
    void routerGone(int subtask, int attempt) {
        if (subtask >= routers) {
            return; // a parallelism other than the built one: the task refuses to run
        }
        RouterReport report = routerReports.remove(subtask);
        int known = Math.max(attempt, report == null ? -1 : report.attempt());
        firstRouterAttempt[subtask] = Math.max(firstRouterAttempt[subtask], known + 1);
    }

    /** A gate attempt failed ({@code attempt} known) or was reset ({@code attempt} = -1). */
    void gateGone(int subtask, int attempt) {
        if (subtask >= gates) {
            return; // a parallelism other than the built one: the task refuses to run
        }
        Integer reported = gateAttempts.remove(subtask);
        int known = Math.max(attempt, reported == null ? -1 : reported);
        firstGateAttempt[subtask] = Math.max(firstGateAttempt[subtask], known + 1);
    }

    /** Every subtask of both operators is gone (a global restore). */
    void allGone() {
        for (int subtask = 0; subtask < routers; subtask++) {
            routerGone(subtask, -1);
        }
        for (int subtask = 0; subtask < gates; subtask++) {
            gateGone(subtask, -1);
        }
    }

    /**
     * The table every router routes by, once all routers reported and all gates started. Routers
     * restore the same union state, so their tables agree; should they not, the newest wins (it is
     * the one the newest restored checkpoint's gates were written under).
     */
    Optional<RoutingTable> agreedTable() {
        if (routerReports.size() < routers || gateAttempts.size() < gates) {
            return Optional.empty();
        }
        return routerReports.values().stream()
                .map(RouterReport::table)
                .max(Comparator.comparingLong(RoutingTable::epoch));
    }

    /** Whether the routers reported different tables; worth a warning. */
    boolean routersDisagree() {
        return routerReports.values().stream().map(RouterReport::table).distinct().count() > 1;
    }

    /** What is still missing, for messages. */
    String waitingFor() {
        List<String> missing = new ArrayList<>();
        for (int subtask = 0; subtask < routers; subtask++) {
            if (!routerReports.containsKey(subtask)) {
                missing.add("router " + subtask);
            }
        }
        for (int subtask = 0; subtask < gates; subtask++) {
            if (!gateAttempts.containsKey(subtask)) {
                missing.add("gate " + subtask);
            }
        }
        return missing.isEmpty() ? "nothing" : String.join(", ", missing);
    }
}
