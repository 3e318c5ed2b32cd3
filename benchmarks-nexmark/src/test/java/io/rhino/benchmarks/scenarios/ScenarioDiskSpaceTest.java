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
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A state fill the disk cannot hold is refused before it starts, naming what takes the space. */
class ScenarioDiskSpaceTest {

    private static final long GB = 1L << 30;

    @Test
    void aFillFitsWithThreeTimesItsStatePlusOneGbFree() {
        long twentyGb = MemorySize.parse("20g").getBytes();
        assertThat(ScenarioDiskSpace.fits(twentyGb, 79 * GB)).isTrue();
        assertThat(ScenarioDiskSpace.fits(twentyGb, 61 * GB)).isTrue();
        assertThat(ScenarioDiskSpace.fits(twentyGb, 61 * GB - 1)).isFalse();
        assertThat(ScenarioDiskSpace.fits(twentyGb, 36 * GB)).isFalse();
        assertThat(ScenarioDiskSpace.fits(0, 0)).isTrue();
    }

    @Test
    void theAdviceSaysWhatTheFillNeedsAndWhatTakesTheSpace() {
        long twentyGb = MemorySize.parse("20g").getBytes();
        Path leftover = Path.of("/tmp/rhino-scenario-flink-42");
        assertThat(
                        ScenarioDiskSpace.advice(
                                Path.of("/tmp"), twentyGb, 36 * GB, Map.of(leftover, 44 * GB)))
                .contains(
                        "20.0 GB state fill",
                        "(61.0 GB)",
                        "but 36.0 GB is free",
                        "/tmp/rhino-scenario-flink-42 (44.0 GB)",
                        "--state-size");
    }

    @Test
    void leftoversAreTheRunDirectoriesWithTheirSizes(@TempDir Path dir) throws Exception {
        Path killedRun = Files.createDirectories(dir.resolve("rhino-scenario-rhino-7/flink"));
        Files.write(killedRun.resolve("000042.sst"), new byte[3000]);
        Files.createDirectories(dir.resolve("junit-other"));
        Files.write(dir.resolve("rhino-scenario-notes.txt"), new byte[10]);

        assertThat(ScenarioDiskSpace.leftovers(dir))
                .containsExactly(Map.entry(dir.resolve("rhino-scenario-rhino-7"), 3000L));
    }

    @Test
    void aDiskThatCannotHoldTheFillIsRefusedAndAnEmptyFillIsNot(@TempDir Path dir) {
        long more = Long.MAX_VALUE / 4; // more than any disk holds
        assertThatThrownBy(() -> ScenarioDiskSpace.require(dir, more))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Not enough free space in " + dir.toAbsolutePath());
        assertThatCode(() -> ScenarioDiskSpace.require(dir, 0)).doesNotThrowAnyException();
    }
}
