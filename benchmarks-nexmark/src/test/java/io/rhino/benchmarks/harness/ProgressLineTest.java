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

package io.rhino.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressLineTest {

    @Test
    void etaIsTheRestAtTheSamePace() {
        assertThat(ProgressLine.etaMillis(70_000, 0.5)).isEqualTo(70_000);
        assertThat(ProgressLine.etaMillis(30_000, 0.25)).isEqualTo(90_000);
        assertThat(ProgressLine.etaMillis(10_000, 1.0)).isZero();
    }

    @Test
    void formatsElapsedEtaThroughputAndP99() {
        FakeClock clock = new FakeClock(1_000_000);
        ProgressLine line = new ProgressLine("nbq8 rhino", clock, 5000, System.out);
        clock.advance(70_000);

        // 40% in 70 s: 105 s to go.
        assertThat(line.format(0.4, 12_345.4, 120))
                .isEqualTo("[nbq8 rhino] 40% 1m10s elapsed, ETA 1m45s, 12,345 rec/s, p99 120 ms");
        assertThat(line.format(0, 0, -1))
                .isEqualTo("[nbq8 rhino] 0% 1m10s elapsed, ETA ?, 0 rec/s, p99 - ms");
        clock.advance(2 * 3600_000L);
        assertThat(line.format(0.99, 1e6, 4321))
                .startsWith(
                        "[nbq8 rhino] 99% 2h01m elapsed, ETA 1m13s, 1,000,000 rec/s, p99 4,321 ms");
    }

    @Test
    void printsAtMostOnceEveryInterval() {
        FakeClock clock = new FakeClock(0);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        ProgressLine line = new ProgressLine("s", clock, 5000, out);

        assertThat(line.update(0.1, 1, 1)).isTrue();
        clock.advance(1000);
        assertThat(line.update(0.2, 1, 1)).isFalse();
        clock.advance(3999);
        assertThat(line.update(0.3, 1, 1)).isFalse();
        clock.advance(1);
        assertThat(line.update(0.4, 1, 1)).isTrue();

        assertThat(bytes.toString(StandardCharsets.UTF_8).lines())
                .containsExactly(
                        "[s] 10% 0s elapsed, ETA 0s, 1 rec/s, p99 1 ms",
                        "[s] 40% 5s elapsed, ETA 8s, 1 rec/s, p99 1 ms");
    }
}
