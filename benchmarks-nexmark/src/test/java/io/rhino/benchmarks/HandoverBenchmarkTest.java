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

package io.rhino.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.benchmarks.handover.HandoverReport;
import io.rhino.benchmarks.handover.HandoverReport.FlinkRescale;
import io.rhino.benchmarks.handover.HandoverReport.RhinoHandover;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Smoke test: a tiny handover benchmark moves the filled vnodes with a completed handover, reads
 * the steps of their RocksDB opens at the target, times Flink's savepoint rescale of the same
 * state, and writes the CSV.
 */
class HandoverBenchmarkTest {

    @TempDir Path dir;

    @Test
    void tinyRunMovesTheStateAndMeasuresBothSystems() throws Exception {
        Path csv = dir.resolve("handover.csv");

        HandoverReport report =
                HandoverBenchmark.run(
                        new String[] {
                            "--sizes", "4m",
                            "--steady-seconds", "1",
                            "--after-seconds", "1",
                            "--probe-rate", "500",
                            "--out", csv.toString()
                        });

        assertThat(report.rhino()).hasSize(1);
        RhinoHandover rhino = report.rhino().get(0);
        assertThat(rhino.result().isCompleted()).as("%s", rhino.result()).isTrue();
        assertThat(rhino.movedVnodes()).isEqualTo(12); // 24 vnodes over 2 active subtasks
        assertThat(rhino.checkpointBytes()).as("filled state on disk").isGreaterThan(4L << 20);
        assertThat(rhino.steady().count()).as("probes before the move").isPositive();
        assertThat(rhino.after().count()).as("probes after the move").isPositive();
        // all the filled state moved; a checkpoint before the move holds it already
        assertThat(rhino.checkpointAfter().uploadedBytes())
                .as("the first checkpoint after the move uploads only what is new")
                .isPositive()
                .isLessThan(rhino.checkpointBytes() / 2);
        // every moved vnode's RocksDB open at the target, read from its information log
        assertThat(rhino.targetOpens()).isEqualTo(rhino.movedVnodes());
        assertThat(rhino.targetOpenSteps())
                .hasValueSatisfying(
                        steps ->
                                assertThat(steps.totalMillis())
                                        .isPositive()
                                        .isGreaterThanOrEqualTo(steps.recoverMillis())
                                        .isGreaterThanOrEqualTo(steps.newManifestMillis()));

        assertThat(report.flink()).hasSize(1);
        FlinkRescale flink = report.flink().get(0);
        assertThat(flink.savepointMillis()).isPositive();
        assertThat(flink.downtimeMillis()).isGreaterThanOrEqualTo(flink.savepointMillis());

        List<String> lines = Files.readAllLines(csv);
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("sut,size_bytes,checkpoint_bytes,total_ms,");
        assertThat(lines.subList(1, 3))
                .extracting(line -> line.split(",")[0])
                .containsExactly("rhino", "flink-savepoint-rescale");
        int columns = lines.get(0).split(",", -1).length;
        assertThat(lines.subList(1, 3))
                .allSatisfy(row -> assertThat(row.split(",", -1)).hasSize(columns));
    }
}
