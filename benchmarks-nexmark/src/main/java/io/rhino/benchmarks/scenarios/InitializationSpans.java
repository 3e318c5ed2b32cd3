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
 * configuration.
 */
public final class InitializationSpans {

    private static final Logger LOG = LoggerFactory.getLogger(InitializationSpans.class);

    static final String SPAN = "JobInitialization";

    /** The longest state download of a subtask, in ms (Flink's attribute). */
    static final String MAX_DOWNLOAD_MS = "maxDownloadStateDurationMs";

    /** The restored state of all subtasks, in bytes. */
    static final String SUM_RESTORED_BYTES = "sumRestoredStateSizeBytes";

    private static final List<Report> REPORTS = new ArrayList<>();

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

    private static final class Reporter implements TraceReporter {
        @Override
        public void open(MetricConfig config) {}

        @Override
        public void close() {}

        @Override
        public void notifyOfAddedSpan(Span span) {
            if (!SPAN.equals(span.getName())) {
                return;
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
            add(new Report(span.getStartTsMillis(), span.getEndTsMillis(), numbers));
        }
    }
}
