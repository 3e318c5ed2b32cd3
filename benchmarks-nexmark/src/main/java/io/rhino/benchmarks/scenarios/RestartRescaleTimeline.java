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

package io.rhino.benchmarks.scenarios;

import io.rhino.benchmarks.harness.PhaseTimings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The instants of one rescale as the harness saw them (epoch ms, -1 where not seen), and the steps
 * of the paper's Table 5.1 derived from them the same way for every system under test.
 *
 * <p>A restart: {@code until restart} (request until a keyed subtask stopped: the adaptive
 * scheduler waits for a checkpoint and its rescale interval), {@code scheduling} (until every keyed
 * subtask of the new parallelism was deployed), {@code state fetching} (the longest download of a
 * subtask's state from the checkpoint storage, as Flink reports it; absent when not reported),
 * {@code state loading} (the rest of the restore, until every keyed subtask ran), {@code until
 * processing} (until the first result after that), {@code catch-up} (until the p99 latency stayed
 * low), {@code downtime} (restart began until the subtasks ran and produced) and {@code total}
 * (request until caught up). A live rescale (no restart seen) has {@code live rescale} (request
 * until done), {@code downtime} 0, {@code catch-up} and {@code total}.
 *
 * @param requested the rescale was asked for
 * @param restartBegan a keyed subtask stopped; -1 for a live rescale
 * @param deployed every keyed subtask of the new parallelism was deployed (restoring or running)
 * @param running every keyed subtask ran at the new parallelism (a live rescale: it completed)
 * @param firstResult the first result after {@code deployed}
 * @param caughtUp the first of three seconds in a row with a low p99 latency
 * @param stateFetchingMillis the longest state download of a subtask; -1 if not reported
 */
record RestartRescaleTimeline(
        long requested,
        long restartBegan,
        long deployed,
        long running,
        long firstResult,
        long caughtUp,
        long stateFetchingMillis) {

    static final String UNTIL_RESTART = "until restart";
    static final String UNTIL_PROCESSING = "until processing";
    static final String LIVE_RESCALE = "live rescale";
    static final String DOWNTIME = "downtime";
    static final String TOTAL = "total";

    boolean restarted() {
        return restartBegan >= 0;
    }

    /** The steps, in the order they happened, then downtime and total. */
    PhaseTimings phases() {
        Map<String, Duration> steps = new LinkedHashMap<>();
        long processing;
        if (restarted()) {
            require(
                    deployed >= restartBegan && running >= deployed,
                    "restart instants out of order");
            steps.put(UNTIL_RESTART, between(requested, restartBegan));
            steps.put(PhaseTimings.SCHEDULING, between(restartBegan, deployed));
            long restore = running - deployed;
            long fetching = stateFetchingMillis < 0 ? -1 : Math.min(stateFetchingMillis, restore);
            if (fetching >= 0) {
                steps.put(PhaseTimings.STATE_FETCHING, Duration.ofMillis(fetching));
            }
            steps.put(
                    PhaseTimings.STATE_LOADING, Duration.ofMillis(restore - Math.max(0, fetching)));
            processing = firstResult < 0 ? running : Math.max(running, firstResult);
            steps.put(UNTIL_PROCESSING, between(running, processing));
        } else {
            require(running >= requested, "live rescale ended before it was asked for");
            steps.put(LIVE_RESCALE, between(requested, running));
            processing = running;
        }
        if (caughtUp >= 0) {
            steps.put(TaskManagerFailure.CATCH_UP, between(processing, caughtUp));
        }
        steps.put(DOWNTIME, restarted() ? between(restartBegan, processing) : Duration.ZERO);
        if (caughtUp >= 0) {
            steps.put(TOTAL, between(requested, Math.max(processing, caughtUp)));
        }
        return new PhaseTimings(steps);
    }

    private static Duration between(long from, long to) {
        return Duration.ofMillis(Math.max(0, to - from));
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException(message);
        }
    }
}
