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

package io.rhino.benchmarks.studies;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Smoke test: a tiny run fills both systems, reads every checkpoint's synchronous duration from
 * Flink's statistics, writes the CSV and leaves nothing behind in its directory.
 */
@Timeout(180)
class CheckpointSyncBenchmarkTest {

    @TempDir Path dir;
    @TempDir Path results;

    @Test
    void tinyRunReportsTheSyncPhaseOfFillAndRestCheckpointsOfBothSystems() throws Exception {
        Path csv = results.resolve("sync.csv");

        List<CheckpointSyncBenchmark.Row> rows =
                CheckpointSyncBenchmark.run(
                        new String[] {
                            "--state-gb", "0.02",
                            "--fill-checkpoint-seconds", "1",
                            "--rest-checkpoints", "2",
                            "--vnodes", "8",
                            "--dir", dir.toString(),
                            "--out", csv.toString()
                        });

        for (String sut : List.of("rhino", "flink")) {
            List<String> phases =
                    rows.stream()
                            .filter(row -> row.sut().equals(sut))
                            .map(CheckpointSyncBenchmark.Row::phase)
                            .toList();
            assertThat(phases).as(sut).contains("fill");
            assertThat(phases.stream().filter("rest"::equals)).as(sut).hasSize(2);
        }
        assertThat(rows)
                .allSatisfy(
                        row -> {
                            assertThat(row.syncMaxMs()).isNotNegative();
                            assertThat(row.syncMaxMs()).isGreaterThanOrEqualTo(row.syncMeanMs());
                            assertThat(row.endToEndMs()).isGreaterThanOrEqualTo(row.syncMaxMs());
                            assertThat(row.filledBytes()).isGreaterThanOrEqualTo(20L << 20);
                        });
        assertThat(Files.readAllLines(csv)).hasSize(rows.size() + 1);
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).as("checkpoints and RocksDB files are removed").isEmpty();
        }
    }
}
