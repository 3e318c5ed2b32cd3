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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Smoke test: a tiny run checkpoints every layout and moves a vnode with each (every move reads the
 * vnode's keys back at its target, or the run fails), writes the CSV and leaves nothing behind.
 */
@Timeout(120)
class StateLayoutBenchmarkTest {

    @TempDir Path dir;
    @TempDir Path results;

    @Test
    void tinyRunCheckpointsAndMovesAVnodeWithEveryLayout() throws Exception {
        Path csv = results.resolve("layout.csv");

        StateLayoutBenchmark.run(
                new String[] {
                    "--vnodes", "3",
                    "--vnode-mb", "2",
                    "--moves", "3",
                    "--rounds", "2",
                    "--dir", dir.toString(),
                    "--out", csv.toString()
                });

        List<String> lines = Files.readAllLines(csv);
        for (String layout :
                List.of(
                        "instance-per-vnode",
                        "instance-per-subtask-flink",
                        "family-per-vnode",
                        "family-per-vnode-atomic-flush")) {
            assertThat(lines.stream().filter(l -> l.startsWith("checkpoint," + layout + ",")))
                    .as(layout)
                    .hasSize(2);
        }
        for (String layout :
                List.of(
                        "instance-per-vnode",
                        "family-per-vnode-in-process",
                        "family-per-vnode-across-processes")) {
            for (String phase : List.of("export", "install", "release")) {
                assertThat(lines.stream().filter(l -> l.startsWith("move," + layout + ",")))
                        .as(layout)
                        .filteredOn(l -> l.contains("," + phase + ","))
                        .hasSize(3);
            }
        }
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).as("instances and shipments are removed").isEmpty();
        }
    }

    @Test
    void anUnknownPartIsNamed() {
        assertThatThrownBy(
                        () ->
                                StateLayoutBenchmark.run(
                                        new String[] {
                                            "--parts", "restore",
                                            "--dir", dir.toString(),
                                            "--out", results.resolve("x.csv").toString()
                                        }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("restore");
    }
}
