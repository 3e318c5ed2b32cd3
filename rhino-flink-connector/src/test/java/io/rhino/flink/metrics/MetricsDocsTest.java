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

package io.rhino.flink.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.core.handover.HandoverPhase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

/** docs/metrics.md is exactly what {@link RhinoMetric} renders to, and the registry is sound. */
class MetricsDocsTest {

    private static final Path DOC = Path.of("..", "docs", "metrics.md");

    @Test
    void metricsReferenceIsUpToDate() throws Exception {
        String rendered = MetricsDocs.render();
        if (Boolean.getBoolean("rhino.docs.regenerate")) {
            Files.writeString(DOC, rendered, StandardCharsets.UTF_8);
        }
        assertThat(DOC).as("docs/metrics.md exists").exists();
        assertThat(Files.readString(DOC, StandardCharsets.UTF_8))
                .as(
                        "docs/metrics.md is stale; regenerate it with: mvn -pl "
                                + "rhino-flink-connector -am test -Dtest=MetricsDocsTest "
                                + "-Dsurefire.failIfNoSpecifiedTests=false "
                                + "-Drhino.docs.regenerate=true")
                .isEqualTo(rendered);
    }

    @Test
    void namesAreUniqueWithinAScopeAndValidForPrometheus() {
        Set<String> exported = new HashSet<>();
        for (RhinoMetric metric : RhinoMetric.values()) {
            assertThat(exported.add(metric.prometheusName())).as(metric.name()).isTrue();
            assertThat(metric.prometheusName()).matches("[a-zA-Z_:][a-zA-Z0-9_:]*");
            assertThat(metric.description()).as(metric.name()).isNotBlank().endsWith(".");
        }
    }

    @Test
    void everyPhaseAHandoverTakesTimeToReachHasAGauge() {
        Arrays.stream(HandoverPhase.values())
                .filter(p -> p != HandoverPhase.REQUESTED && p != HandoverPhase.FAILED)
                .forEach(
                        p ->
                                assertThat(RhinoMetric.lastHandoverPhase(p).scope())
                                        .isEqualTo(RhinoMetric.Scope.COORDINATOR));
        assertThatThrownBy(() -> RhinoMetric.lastHandoverPhase(HandoverPhase.FAILED))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMetricIsRegisteredOnlyAsItsType() {
        UnregisteredMetricsGroup group = new UnregisteredMetricsGroup();
        assertThatThrownBy(() -> RhinoMetric.ROUTING_EPOCH.counter(group))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("rhinoRoutingEpoch is a GAUGE");
        assertThat(RhinoMetric.HANDOVER_BYTES_SENT.counter(group)).isNotNull();
    }
}
