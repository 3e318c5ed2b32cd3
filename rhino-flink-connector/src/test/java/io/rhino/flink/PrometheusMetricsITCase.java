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

package io.rhino.flink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.metrics.RhinoMetric;
import io.rhino.flink.testjobs.FailOnDemand;
import io.rhino.flink.testjobs.ReleasableRate;
import io.rhino.flink.testjobs.ShapeFunctions;
import io.rhino.flink.testjobs.SkewedEvents;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import io.rhino.replication.testing.StablePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flink's own Prometheus reporter (flink-metrics-prometheus, as a user installs it) exports every
 * metric of {@link RhinoMetric} under the name the registry and docs/metrics.md give, and every
 * metric the Grafana dashboard in docs/grafana queries, or docs/operations.md names, is one the
 * reporter exports. The job runs with replication, the auto-balancer, a handover and a failover, so
 * that every metric, including those registered only on a restore, exists when the reporter is
 * scraped.
 */
@Timeout(180)
class PrometheusMetricsITCase {

    private static final String NAME = "prometheus";
    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "rhino-dashboard.json");
    private static final Path OPERATIONS = Path.of("..", "docs", "operations.md");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]");
    private static final Pattern QUERIED = Pattern.compile("\\bflink_[a-zA-Z0-9_:]*");
    private static final Set<String> QUERY_FIELDS = Set.of("expr", "query", "definition");
    private static final int PORT = freePort();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers(prometheus(PORT));

    @TempDir Path checkpoints;
    @TempDir Path replicas;

    @Test
    void everyRhinoMetricAndEveryDashboardQueryNamesAnExportedMetric(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        String runId = "prometheus-" + UUID.randomUUID();
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(
                config, checkpoints, RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
        RhinoClusters.withPeerReplication(config, replicas, null);
        // the services end soon after the job: with the 5 min default, later test classes of this
        // JVM (SessionClusterLeakITCase) saw their threads
        config.set(RhinoOptions.REPLICATION_RETAIN_AFTER_TASKS, Duration.ofSeconds(2));
        RhinoClusters.withRestarts(config, 3, Duration.ofMillis(100));
        config.set(RhinoOptions.BALANCER_AUTO, true);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        RhinoStreams.keyBy(
                        SkewedEvents.stream(env, 10_000_000, 1_000, new ReleasableRate(runId, 500))
                                .map(new FailOnDemand<>(runId))
                                .setParallelism(1),
                        new ShapeFunctions.ByKey(),
                        RhinoKeyedStreamOptions.named(NAME))
                .process(new ShapeFunctions.CountPerKey())
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("prometheus");
        try {
            HandoverManager manager =
                    RhinoHandovers.awaitReady(job.getJobID(), NAME, Duration.ofSeconds(60));
            RhinoClusters.checkpoint(miniCluster, job.getJobID());
            RoutingTable table = manager.routingTable();
            int owner = table.ownerOf(0);
            assertThat(
                            manager.handover(List.of(new VnodeMove(0, owner, (owner + 1) % 3)))
                                    .get(60, TimeUnit.SECONDS)
                                    .isCompleted())
                    .isTrue();
            RhinoClusters.checkpoint(miniCluster, job.getJobID());
            FailOnDemand.arm(runId);
            RhinoClusters.awaitRecovered(job.getJobID(), NAME, runId);
            RhinoClusters.checkpoint(miniCluster, job.getJobID());

            Map<String, List<Double>> exported = scrapeUntilAllRhinoMetricsAreThere();
            for (RhinoMetric metric : RhinoMetric.values()) {
                assertThat(exported)
                        .as("exported by Flink's Prometheus reporter: %s", metric)
                        .containsKey(metric.prometheusName());
            }
            assertThat(sum(exported, RhinoMetric.HANDOVERS_COMPLETED)).isGreaterThanOrEqualTo(1);
            assertThat(sum(exported, RhinoMetric.REPLICATED_BYTES)).isPositive();
            assertThat(sum(exported, RhinoMetric.VNODES_RESTORED_FROM_REPLICAS))
                    .as("vnodes restored from replicas after the failover")
                    .isPositive();
            assertThat(sum(exported, RhinoMetric.OWNED_VNODES)).isEqualTo(12);

            Set<String> queried = dashboardMetricNames();
            assertThat(queried).as("metrics the dashboard queries").isNotEmpty();
            assertThat(exported.keySet()).as("exported metrics").containsAll(queried);
            assertThat(queried)
                    .as("the dashboard shows handovers, replication lag and restore sources")
                    .contains(
                            RhinoMetric.HANDOVERS_COMPLETED.prometheusName(),
                            RhinoMetric.LAST_HANDOVER_DURATION_MS.prometheusName(),
                            RhinoMetric.REPLICATION_LAG_MS.prometheusName(),
                            RhinoMetric.VNODES_RESTORED_FROM_REPLICAS.prometheusName(),
                            RhinoMetric.OWNED_VNODES.prometheusName());

            Set<String> inOperations = new TreeSet<>();
            Matcher name = QUERIED.matcher(Files.readString(OPERATIONS));
            while (name.find()) {
                inOperations.add(name.group());
            }
            assertThat(inOperations).as("Prometheus names in docs/operations.md").isNotEmpty();
            assertThat(exported.keySet()).containsAll(inOperations);
        } finally {
            job.cancel().get(60, TimeUnit.SECONDS);
        }
    }

    /** The cluster's configuration with Flink's Prometheus reporter serving on {@code port}. */
    private static Configuration prometheus(int port) {
        Configuration config = new Configuration();
        config.setString(
                "metrics.reporter.prom.factory.class",
                "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        config.setString("metrics.reporter.prom.port", String.valueOf(port));
        return config;
    }

    /** Restore gauges are registered while the restarted subtasks restore: scrape until then. */
    private static Map<String, List<Double>> scrapeUntilAllRhinoMetricsAreThere() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            Map<String, List<Double>> exported = scrape();
            boolean complete =
                    exported.keySet()
                            .containsAll(
                                    java.util.Arrays.stream(RhinoMetric.values())
                                            .map(RhinoMetric::prometheusName)
                                            .toList());
            if (complete || System.nanoTime() > deadline) {
                return exported;
            }
            Thread.sleep(500);
        }
    }

    /** Every sample's metric name, with the values of its series. */
    private static Map<String, List<Double>> scrape() throws IOException, InterruptedException {
        HttpResponse<String> response =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(
                                                URI.create("http://127.0.0.1:" + PORT + "/metrics"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        Map<String, List<Double>> samples = new HashMap<>();
        for (String line : response.body().split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (!line.startsWith("#") && sample.find()) {
                String value = line.substring(line.lastIndexOf(' ') + 1);
                samples.computeIfAbsent(sample.group(1), n -> new ArrayList<>())
                        .add(Double.parseDouble(value));
            }
        }
        return samples;
    }

    private static double sum(Map<String, List<Double>> exported, RhinoMetric metric) {
        return exported.get(metric.prometheusName()).stream().mapToDouble(d -> d).sum();
    }

    /** Every flink_* name in the dashboard's queries: panel targets and template variables. */
    private static Set<String> dashboardMetricNames() throws IOException {
        Set<String> names = new TreeSet<>();
        collectQueried(new ObjectMapper().readTree(Files.readString(DASHBOARD)), null, names);
        return names;
    }

    private static void collectQueried(JsonNode node, String field, Set<String> names) {
        if (node.isTextual() && QUERY_FIELDS.contains(field)) {
            Matcher name = QUERIED.matcher(node.asText());
            while (name.find()) {
                names.add(name.group());
            }
        } else if (node.isObject()) {
            node.fields().forEachRemaining(e -> collectQueried(e.getValue(), e.getKey(), names));
        } else if (node.isArray()) {
            node.forEach(element -> collectQueried(element, field, names));
        }
    }

    private static int freePort() {
        try {
            return StablePorts.next();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
