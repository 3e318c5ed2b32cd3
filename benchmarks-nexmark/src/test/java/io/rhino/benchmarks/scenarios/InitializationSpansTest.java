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

import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.traces.Span;
import org.apache.flink.traces.reporter.TraceReporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InitializationSpansTest {

    @TempDir Path directory;

    @Test
    void theFileReporterWritesEachInitializationAndOnlyThose() throws Exception {
        Path file = directory.resolve("initializations.jsonl");
        Configuration config = InitializationSpans.registerFile(new Configuration(), file);
        Properties properties = new Properties();
        properties.setProperty(
                "file", config.getString("traces.reporter.initialization-file.file", null));
        TraceReporter reporter =
                new InitializationSpans.FileFactory().createTraceReporter(properties);

        reporter.notifyOfAddedSpan(
                Span.builder(getClass(), InitializationSpans.SPAN)
                        .setStartTsMillis(1_000)
                        .setEndTsMillis(3_500)
                        .setAttribute(InitializationSpans.MAX_DOWNLOAD_MS, 2_000L)
                        .setAttribute("checkpointId", 7L)
                        .setAttribute("note", "not a number")
                        .build());
        reporter.notifyOfAddedSpan(
                Span.builder(getClass(), "Checkpoint").setStartTsMillis(4_000).build());
        reporter.notifyOfAddedSpan(
                Span.builder(getClass(), InitializationSpans.SPAN)
                        .setStartTsMillis(5_000)
                        .setEndTsMillis(5_100)
                        .build());

        List<InitializationSpans.Report> reports = InitializationSpans.readFile(file);
        assertThat(reports).hasSize(2);
        assertThat(reports.get(0).startMillis()).isEqualTo(1_000);
        assertThat(reports.get(0).endMillis()).isEqualTo(3_500);
        assertThat(reports.get(0).attributes())
                .containsEntry(InitializationSpans.MAX_DOWNLOAD_MS, 2_000.0)
                .containsEntry("checkpointId", 7.0)
                .doesNotContainKey("note");
        assertThat(reports.get(1).startMillis()).isEqualTo(5_000);
        assertThat(InitializationSpans.readFile(directory.resolve("none.jsonl"))).isEmpty();
    }
}
