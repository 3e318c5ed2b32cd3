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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.traces.Span;
import org.apache.flink.traces.reporter.TraceReporter;
import org.apache.flink.traces.reporter.TraceReporterFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink's report of each job initialization (the {@code JobInitialization} span: per restore the
 * longest and summed download and restore durations of the subtasks, and the restored bytes), kept
 * in this JVM for the embedded cluster's runs. {@link #register} adds the reporter to a cluster's
 * configuration; {@link #registerFile} adds one that appends each report to a file, for a
 * JobManager in a process of its own ({@link #readFile}).
 */
public final class InitializationSpans {

    private static final Logger LOG = LoggerFactory.getLogger(InitializationSpans.class);

    static final String SPAN = "JobInitialization";

    /** The longest state download of a subtask, in ms (Flink's attribute). */
    static final String MAX_DOWNLOAD_MS = "maxDownloadStateDurationMs";

    /** The restored state of all subtasks, in bytes. */
    static final String SUM_RESTORED_BYTES = "sumRestoredStateSizeBytes";

    private static final List<Report> REPORTS = new ArrayList<>();

    private static final String FILE_PROPERTY = "file";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One initialization: when it ended, and its numeric attributes. */
    record Report(long startMillis, long endMillis, Map<String, Double> attributes) {
        Optional<Double> attribute(String name) {
            return Optional.ofNullable(attributes.get(name));
        }
    }

    private InitializationSpans() {}

    /** {@code config} with this reporter as a trace reporter. */
    static Configuration register(Configuration config) {
        config.setString("traces.reporter.initialization.factory.class", Factory.class.getName());
        return config;
    }

    /** The first initialization that started at or after {@code sinceMillis}. */
    static synchronized Optional<Report> firstSince(long sinceMillis) {
        return REPORTS.stream().filter(r -> r.startMillis() >= sinceMillis).findFirst();
    }

    /**
     * {@code config} with a trace reporter that appends each initialization to {@code file}, one
     * JSON object per line: for a JobManager in another process.
     */
    static Configuration registerFile(Configuration config, Path file) {
        config.setString(
                "traces.reporter.initialization-file.factory.class", FileFactory.class.getName());
        config.setString("traces.reporter.initialization-file." + FILE_PROPERTY, file.toString());
        return config;
    }

    /** The initializations a {@link #registerFile} reporter wrote so far, oldest first. */
    static List<Report> readFile(Path file) throws IOException {
        List<Report> reports = new ArrayList<>();
        if (!Files.exists(file)) {
            return reports;
        }
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode node = JSON.readTree(line);
            Map<String, Double> attributes = new LinkedHashMap<>();
            node.path("attributes")
                    .fields()
                    .forEachRemaining(e -> attributes.put(e.getKey(), e.getValue().asDouble()));
            reports.add(
                    new Report(node.path("start").asLong(), node.path("end").asLong(), attributes));
        }
        return reports;
    }

    static synchronized void clear() {
        REPORTS.clear();
    }

    private static synchronized void add(Report report) {
        REPORTS.add(report);
    }

    /** Creates the reporter; named in the cluster's configuration. */
    public static final class Factory implements TraceReporterFactory {
        @Override
        public TraceReporter createTraceReporter(Properties properties) {
            return new Reporter();
        }
    }

    /** Creates the reporter that writes to a file; named in the cluster's configuration. */
    public static final class FileFactory implements TraceReporterFactory {
        @Override
        public TraceReporter createTraceReporter(Properties properties) {
            return new FileReporter(Path.of(properties.getProperty(FILE_PROPERTY)));
        }
    }

    /** The report of a {@code JobInitialization} span; empty for any other span. */
    private static Optional<Report> reportOf(Span span) {
        if (!SPAN.equals(span.getName())) {
            return Optional.empty();
        }
        Map<String, Double> numbers = new LinkedHashMap<>();
        span.getAttributes()
                .forEach(
                        (name, value) -> {
                            if (value instanceof Number number) {
                                numbers.put(name, number.doubleValue());
                            }
                        });
        LOG.info(
                "Job initialization {} ms: {}",
                span.getEndTsMillis() - span.getStartTsMillis(),
                span.getAttributes());
        return Optional.of(new Report(span.getStartTsMillis(), span.getEndTsMillis(), numbers));
    }

    private static final class Reporter implements TraceReporter {
        @Override
        public void open(MetricConfig config) {}

        @Override
        public void close() {}

        @Override
        public void notifyOfAddedSpan(Span span) {
            reportOf(span).ifPresent(InitializationSpans::add);
        }
    }

    private static final class FileReporter implements TraceReporter {
        private final Path file;

        FileReporter(Path file) {
            this.file = file;
        }

        @Override
        public void open(MetricConfig config) {}

        @Override
        public void close() {}

        @Override
        public synchronized void notifyOfAddedSpan(Span span) {
            reportOf(span).ifPresent(this::append);
        }

        private void append(Report report) {
            ObjectNode line = JSON.createObjectNode();
            line.put("start", report.startMillis());
            line.put("end", report.endMillis());
            ObjectNode attributes = line.putObject("attributes");
            report.attributes().forEach(attributes::put);
            try {
                Files.writeString(
                        file,
                        line + "\n",
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException("Writing the initialization report to " + file, e);
            }
        }
    }
}
