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

import io.rhino.benchmarks.harness.ScenarioRunner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/** The small, short NBQ8 runs the scenario smoke tests share. */
final class SmokeRuns {

    private SmokeRuns() {}

    /**
     * NBQ8 at 0.2 MB/s, 4 s of warm-up, 2 checkpoints (every 2 s) before the reconfiguration and 8
     * s after it, keyed parallelism 4 with 16 vnodes.
     */
    static ScenarioSettings nbq8() {
        return new ScenarioSettings(
                "nbq8",
                "fixed:0.2",
                Duration.ofSeconds(8),
                Duration.ofSeconds(4),
                2,
                Duration.ofSeconds(2),
                0,
                4,
                16,
                2,
                1,
                2,
                Duration.ofHours(12),
                42);
    }

    /** A runner writing under {@code out}, its progress lines kept off the console. */
    static ScenarioRunner quietRunner(Path out) {
        return new ScenarioRunner(out)
                .printTo(
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }
}
