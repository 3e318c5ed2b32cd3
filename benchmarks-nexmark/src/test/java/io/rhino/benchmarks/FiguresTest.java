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

import io.rhino.benchmarks.harness.PhaseCsv;
import io.rhino.benchmarks.harness.RunData;
import io.rhino.benchmarks.harness.SampleRuns;
import io.rhino.benchmarks.harness.TimeSeriesCsv;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FiguresTest {

    private static Path scenarioOutput(Path dir, RunData... runs) throws Exception {
        TimeSeriesCsv.write(dir.resolve("timeseries.csv"), List.of(runs));
        PhaseCsv.write(dir.resolve("phases.csv"), List.of(runs));
        return dir;
    }

    @Test
    void runsOfSeparateCommandsAreDrawnInOneFigure(@TempDir Path temp) throws Exception {
        Path first =
                scenarioOutput(temp.resolve("a/nbq8"), SampleRuns.run("rhino", 20, 10, 500, 8));
        Path second =
                scenarioOutput(
                        temp.resolve("b/nbq8"),
                        SampleRuns.run("rhino", 20, 12, 700, 9),
                        SampleRuns.run("flink", 20, 30, 900, 5));

        assertThat(Figures.runs(List.of(first, second)))
                .extracting(RunData::sut)
                .containsExactly("rhino (a/nbq8)", "rhino (b/nbq8)", "flink");

        List<Path> files = Figures.draw(List.of(first, second), temp.resolve("out"), "both");
        assertThat(files)
                .extracting(f -> f.getFileName().toString())
                .containsExactly("latency-rep1.png", "resources-rep1.png");
        for (Path file : files) {
            BufferedImage image = ImageIO.read(file.toFile());
            assertThat(image.getWidth()).isGreaterThan(500);
        }
    }

    @Test
    void noDirectoryIsAnError(@TempDir Path temp) throws Exception {
        assertThatThrownBy(() -> Figures.draw(List.of(), temp, ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--from");
        Files.createDirectories(temp.resolve("empty"));
        assertThatThrownBy(() -> Figures.draw(List.of(temp.resolve("empty")), temp, ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeseries.csv does not exist");
    }
}
