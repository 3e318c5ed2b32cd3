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

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.handover.HandoverManagerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.operators.coordination.MockOperatorCoordinatorContext;
import org.junit.jupiter.api.Test;

/**
 * The JobManager's side of a full replica store: left out of the chains for the back-off, and taken
 * back when it ends even if no gate reports again (a gate whose input ended reports no more).
 */
class FullStoreBackoffTest {

    // long enough that the back-off cannot end before the test looks at it on a loaded machine (at
    // 500 ms it did: 440 ms passed between the report and the close, and more than 500 ms between
    // the report and the first look while a benchmark ran)
    private static final Duration BACKOFF = Duration.ofSeconds(2);

    @Test
    void aFreedTaskManagerRejoinsTheChainsWhenItsBackoffEndsWithoutAnotherReport()
            throws Exception {
        MockOperatorCoordinatorContext context =
                new MockOperatorCoordinatorContext(new OperatorID(), 3);
        RhinoOperatorSpec spec = new RhinoOperatorSpec("counts", 128, 6, 3, 3);
        RhinoOperatorHub hub = RhinoOperatorHub.of(context, spec, 1);
        try {
            hub.manager(context, HandoverManagerOptions.defaults(), replicatedSettings(BACKOFF));
            hub.routerStarted(0, 0, spec.initialRoutingTable());
            hub.gateStarted(0, 0, "tm-0", "127.0.0.2:7000", -1, Map.of());
            hub.gateStarted(1, 0, "tm-1", "127.0.0.3:7000", -1, Map.of());
            // tm-2's replica store ran out of space just now
            hub.gateStarted(2, 0, "tm-2", "127.0.0.4:7000", 0, Map.of());
            assertThat(hub.view().replication().fullStores()).containsExactly("tm-2");
            assertThat(chainMembers(hub)).isNotEmpty().doesNotContain("tm-2");

            // no gate reports again
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!chainMembers(hub).contains("tm-2") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(hub.view().replication().fullStores()).isEmpty();
            assertThat(chainMembers(hub)).as("chains after the back-off").contains("tm-2");
        } finally {
            hub.close();
        }
    }

    /**
     * The job is cancelled while a back-off check is pending: the check never runs, the hub's timer
     * thread ends, and a late report schedules nothing.
     */
    @Test
    void closingTheHubDropsThePendingCheckAndItsThread() throws Exception {
        MockOperatorCoordinatorContext context =
                new MockOperatorCoordinatorContext(new OperatorID(), 3);
        RhinoOperatorSpec spec = new RhinoOperatorSpec("cancelled", 128, 6, 3, 3);
        RhinoOperatorHub hub = RhinoOperatorHub.of(context, spec, 1);
        hub.manager(context, HandoverManagerOptions.defaults(), replicatedSettings(BACKOFF));
        hub.routerStarted(0, 0, spec.initialRoutingTable());
        hub.gateStarted(0, 0, "tm-0", "127.0.0.2:7000", -1, Map.of());
        hub.gateStarted(1, 0, "tm-1", "127.0.0.3:7000", -1, Map.of());
        hub.gateStarted(2, 0, "tm-2", "127.0.0.4:7000", 0, Map.of());
        assertThat(chainMembers(hub)).isNotEmpty().doesNotContain("tm-2");

        hub.close();
        hub.gateStarted(1, 1, "tm-1", "127.0.0.3:7000", 0, Map.of());
        Thread.sleep(BACKOFF.toMillis() + 1_000);

        assertThat(chainMembers(hub)).as("chains after close").doesNotContain("tm-2");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!timerThreads("cancelled").isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(timerThreads("cancelled")).as("the hub's timer thread after close").isEmpty();
        assertThat(context.isJobFailed()).isFalse();
    }

    private static List<String> timerThreads(String operator) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(name -> name.startsWith("rhino-handover-timer-" + operator))
                .toList();
    }

    private static RhinoRuntimeSettings replicatedSettings(Duration backoff) {
        Configuration config = new Configuration();
        config.set(RhinoOptions.REPLICATION_MODE, "peers");
        config.set(RhinoOptions.REPLICATION_SECRET, "full-store-backoff");
        config.set(RhinoOptions.REPLICATION_FULL_STORE_BACKOFF, backoff);
        return RhinoRuntimeSettings.from(config, Duration.ofSeconds(60));
    }

    private static List<String> chainMembers(RhinoOperatorHub hub) {
        List<String> members = new ArrayList<>();
        hub.view().replication().chains().values().forEach(members::addAll);
        return members;
    }
}
