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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.benchmarks.ThroughputBenchmark.RunResult;
import io.rhino.benchmarks.cli.Args;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Smoke test: a tiny throughput run measures both systems and writes the CSV. */
class ThroughputBenchmarkTest {

    @TempDir Path dir;

    @Test
    void tinyRunMeasuresBothSystemsAndWritesCsv() throws Exception {
        Path csv = dir.resolve("throughput.csv");

        List<RunResult> results = tinyRun(csv, "rhino,flink-rocksdb");

        assertThat(results)
                .extracting(RunResult::sut)
                .containsExactlyInAnyOrder(
                        ThroughputBenchmark.Sut.RHINO, ThroughputBenchmark.Sut.PLAIN);
        List<String> lines = Files.readAllLines(csv);
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0))
                .isEqualTo(
                        "sut,run,records,seconds,records_per_second,completed_checkpoints,"
                                + "cpu_seconds,cpu_ms_per_1000_records,replicated_files");
        assertThat(lines.subList(1, 3))
                .extracting(line -> line.split(",")[0])
                .containsExactlyInAnyOrder("rhino", "flink-rocksdb");
        for (String row : lines.subList(1, 3)) {
            String[] cells = row.split(",");
            assertThat(cells).hasSize(9);
            assertThat(cells[1]).isEqualTo("1");
            assertThat(cells[2]).isEqualTo("20000");
            assertThat(Double.parseDouble(cells[3])).isPositive();
            assertThat(Double.parseDouble(cells[4])).isPositive();
            // with checkpointing on, a bounded job's tasks finish only after a final checkpoint
            assertThat(Long.parseLong(cells[5])).as("completed checkpoints of " + row).isPositive();
            // the whole JVM's CPU over the run, per 1,000 records
            assertThat(Double.parseDouble(cells[6])).isPositive();
            assertThat(Double.parseDouble(cells[7]))
                    .isCloseTo(
                            Double.parseDouble(cells[6]) * 1e6 / 20_000,
                            org.assertj.core.data.Percentage.withPercentage(1));
        }
    }

    @Test
    void pairsEachRunsRatesInRunOrder() {
        List<RunResult> results =
                List.of(
                        new RunResult(ThroughputBenchmark.Sut.PLAIN, 2, 1000, 2.0, 0, 1.0, 0),
                        new RunResult(ThroughputBenchmark.Sut.RHINO, 1, 1000, 1.0, 0, 1.0, 0),
                        new RunResult(ThroughputBenchmark.Sut.PLAIN, 1, 1000, 2.0, 0, 1.0, 0),
                        new RunResult(ThroughputBenchmark.Sut.RHINO, 2, 1000, 4.0, 0, 1.0, 0),
                        new RunResult(ThroughputBenchmark.Sut.RHINO, 3, 1000, 1.0, 0, 1.0, 0));

        // run 3 has no plain Flink run to pair with
        assertThat(ThroughputBenchmark.pairedRatio(results).ratios()).containsExactly(2.0, 0.5);
    }

    @Test
    void replicatedRhinoRunsBesideTheOthersAndIsPairedWithFlink() throws Exception {
        Path csv = dir.resolve("replicated.csv");

        List<RunResult> results = tinyRun(csv, "rhino-replicated,flink-rocksdb");

        assertThat(results)
                .extracting(RunResult::sut)
                .containsExactlyInAnyOrder(
                        ThroughputBenchmark.Sut.RHINO_REPLICATED, ThroughputBenchmark.Sut.PLAIN);
        RunResult replicated =
                results.stream()
                        .filter(r -> r.sut() == ThroughputBenchmark.Sut.RHINO_REPLICATED)
                        .findFirst()
                        .orElseThrow();
        assertThat(replicated.replicatedFiles())
                .as("checkpoint files the peers stored during the run")
                .isPositive();
        assertThat(
                        ThroughputBenchmark.pairedRatio(
                                        results,
                                        ThroughputBenchmark.Sut.RHINO_REPLICATED,
                                        RunResult::recordsPerSecond,
                                        "records/s")
                                .ratios())
                .hasSize(1);
        assertThat(Files.readAllLines(csv).subList(1, 3))
                .extracting(line -> line.split(",")[0])
                .containsExactlyInAnyOrder("rhino-replicated", "flink-rocksdb");
    }

    /** One run of 20,000 records per system, checkpoints every 100 ms, no warm-up. */
    private static List<RunResult> tinyRun(Path csv, String systems) throws Exception {
        return ThroughputBenchmark.run(
                new String[] {
                    "--records", "20000",
                    "--runs", "1",
                    "--warmup-records", "0",
                    "--vnodes", "8",
                    "--checkpoint-interval", "100ms",
                    "--systems", systems,
                    "--out", csv.toString()
                });
    }

    @Test
    void everyRunOrderStartsWithAnotherSystem() {
        List<ThroughputBenchmark.Sut> systems =
                List.of(
                        ThroughputBenchmark.Sut.RHINO,
                        ThroughputBenchmark.Sut.RHINO_REPLICATED,
                        ThroughputBenchmark.Sut.PLAIN);
        assertThat(ThroughputBenchmark.rotated(systems, 0)).isEqualTo(systems);
        assertThat(ThroughputBenchmark.rotated(systems, 1))
                .containsExactly(
                        ThroughputBenchmark.Sut.RHINO_REPLICATED,
                        ThroughputBenchmark.Sut.PLAIN,
                        ThroughputBenchmark.Sut.RHINO);
        assertThat(ThroughputBenchmark.rotated(systems, 3)).isEqualTo(systems);
    }

    @Test
    void refusesSystemsWithoutFlinkOrReplicationWithoutCheckpoints() {
        assertThatThrownBy(() -> ThroughputBenchmark.run(new String[] {"--systems", "rhino"}))
                .hasMessageContaining("needs flink-rocksdb");
        assertThatThrownBy(
                        () ->
                                ThroughputBenchmark.run(
                                        new String[] {
                                            "--systems", "rhino-replicated,flink-rocksdb"
                                        }))
                .hasMessageContaining("give --checkpoint-interval");
        assertThatThrownBy(() -> ThroughputBenchmark.run(new String[] {"--systems", "rhino,flink"}))
                .hasMessageContaining("rhino-replicated")
                .hasMessageContaining("'flink'");
    }

    @Test
    void refusesACheckpointIntervalThatIsNoDuration() {
        assertThatThrownBy(
                        () ->
                                ThroughputBenchmark.run(
                                        new String[] {"--checkpoint-interval", "often"}))
                .hasMessageContaining("--checkpoint-interval needs a duration")
                .hasMessageContaining("often");
    }

    @Test
    void argsRejectUnknownFlags() {
        Args args = new Args("test").flag("records", 1, "records");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> args.parse(new String[] {"--recrods", "5"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unknown flag --recrods");
        assertThat(args.parse(new String[] {"--records=7"})).isTrue();
        assertThat(args.getLong("records")).isEqualTo(7);
    }
}
