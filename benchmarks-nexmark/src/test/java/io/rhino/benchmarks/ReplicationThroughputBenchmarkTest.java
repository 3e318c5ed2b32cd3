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

import io.rhino.benchmarks.replication.ReplicationReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Smoke test: a tiny run measures the disk and chains of 2 and 3 members, with and without TLS,
 * writes the CSV and leaves nothing behind in its directory.
 */
@Timeout(60)
class ReplicationThroughputBenchmarkTest {

    @TempDir Path dir;
    @TempDir Path results;

    @Test
    void tinyRunMeasuresDiskAndEachFactorAndWritesCsv() throws Exception {
        Path csv = results.resolve("replication.csv");

        ReplicationReport report =
                ReplicationThroughputBenchmark.run(
                        new String[] {
                            "--dir", dir.toString(),
                            "--size-gb", "0.0625", // 64 MB
                            "--file-mb", "8",
                            "--factors", "2,3",
                            "--tls", "true",
                            "--out", csv.toString()
                        });

        assertThat(report.replication()).hasSize(4);
        List<String> lines = Files.readAllLines(csv);
        assertThat(lines).hasSize(6);
        assertThat(lines.get(0)).isEqualTo(ReplicationReport.CSV_HEADER);
        assertThat(lines.subList(1, 6))
                .extracting(line -> line.split(",")[0] + "/" + line.split(",")[1])
                .containsExactly(
                        "disk/1",
                        "replication/2",
                        "replication/3",
                        "replication-tls/2",
                        "replication-tls/3");
        for (String row : lines.subList(1, 6)) {
            String[] cells = row.split(",");
            assertThat(cells).hasSize(12);
            assertThat(cells[2]).as("files").isEqualTo("8");
            assertThat(Long.parseLong(cells[3])).as("bytes").isEqualTo(64L << 20);
            assertThat(Double.parseDouble(cells[5])).as("seconds").isPositive();
            assertThat(Double.parseDouble(cells[6])).as("GB/s").isPositive();
            assertThat(Double.parseDouble(cells[9])).as("ratio to disk").isPositive();
        }
        assertThat(lines.get(3).split(",")[4]).as("r = 3 writes two copies").isEqualTo("134217728");
        assertThat(lines.get(1).split(",")[10])
                .as("no Netty for the disk baseline")
                .isEqualTo("-1");
        for (String row : lines.subList(2, 6)) {
            long inUse = Long.parseLong(row.split(",")[10]);
            assertThat(inUse).as("chunks went through Netty's pool: " + row).isPositive();
            assertThat(Long.parseLong(row.split(",")[11])).as("pool").isPositive();
        }
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).as("sources, baseline and stores are removed").isEmpty();
        }
    }

    @Test
    void rejectsBadSizesAndFactors() {
        assertThatThrownBy(() -> run("--size-gb", "0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--size-gb must be greater than 0");
        assertThatThrownBy(() -> run("--size-gb", "lots"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--size-gb needs a number");
        assertThatThrownBy(() -> run("--factors", "1,3"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--factors needs integers from 2 to 8");
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void refusesARunTheDiskCannotHold() {
        assertThatThrownBy(() -> run("--size-gb", "1000000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Not enough free space")
                .hasMessageContaining("--size-gb");
        assertThat(dir).isEmptyDirectory();
    }

    private ReplicationReport run(String flag, String value) throws Exception {
        return ReplicationThroughputBenchmark.run(
                new String[] {"--dir", dir.toString(), flag, value});
    }
}
