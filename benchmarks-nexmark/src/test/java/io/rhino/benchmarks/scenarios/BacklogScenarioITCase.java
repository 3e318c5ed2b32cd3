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

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.benchmarks.harness.RunData;
import io.rhino.benchmarks.harness.ScenarioRunner;
import io.rhino.benchmarks.harness.WindowCost;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A steady NBQ8 run started behind a backlog: the job reads it as fast as it can in the measured
 * window, far faster than the generator writes afterwards, and a backlog that runs out before the
 * window closes fails the run instead of reporting a figure that is not the job's capacity.
 */
class BacklogScenarioITCase {

    /** About 25 input records a second from one generator thread once the backlog is written. */
    private static final String RATE_AFTER_THE_BACKLOG = "fixed:0.01";

    @TempDir Path out;

    @Test
    void aJobStartedBehindABacklogReadsItAtItsOwnPace() throws Exception {
        ScenarioRunner.Report report = runBehind(1_500_000);

        assertThat(report.failures()).isEmpty();
        RunData run = report.runs().get(0);
        assertThat(run.figures().get(WindowCost.CONSUMED))
                .as("records per second read in the window")
                .isGreaterThan(2_000.0);
        assertThat(run.figures().get(NexmarkScenario.BACKLOG_LEFT))
                .as("records of the backlog still unread when the window closed")
                .isGreaterThan(run.figures().get(WindowCost.CONSUMED));
    }

    @Test
    void aBacklogReadBeforeTheWindowClosesFailsTheRun() throws Exception {
        ScenarioRunner.Report report = runBehind(2_000);

        assertThat(report.runs()).isEmpty();
        assertThat(report.failures()).hasSize(1);
        assertThat(report.failures().get(0).error())
                .hasMessageContaining("read the backlog of 2000 records")
                .hasMessageContaining("raise --backlog-records");
    }

    private ScenarioRunner.Report runBehind(long backlogRecords) throws Exception {
        ScenarioSettings settings =
                new ScenarioSettings(
                        "nbq8",
                        RATE_AFTER_THE_BACKLOG,
                        Duration.ofSeconds(6),
                        Duration.ofSeconds(2),
                        1,
                        Duration.ofSeconds(2),
                        0,
                        4,
                        16,
                        2,
                        1,
                        2,
                        Duration.ofHours(12),
                        42,
                        backlogRecords);
        return SmokeRuns.quietRunner(out)
                .run(
                        List.of(Scenarios.create("steady", settings)),
                        List.of(new FlinkSut(ClusterShape.defaultShape())));
    }
}
