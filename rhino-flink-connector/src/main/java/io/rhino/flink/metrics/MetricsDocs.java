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

/**
 * Renders the metrics reference ({@code docs/metrics.md}) from {@link RhinoMetric}, so the
 * documentation cannot drift from what the code registers.
 */
public final class MetricsDocs {

    private MetricsDocs() {}

    /** The whole Markdown page. */
    public static String render() {
        StringBuilder page = new StringBuilder();
        page.append("# Metrics reference\n\n")
                .append("<!-- Generated from io.rhino.flink.metrics.RhinoMetric by MetricsDocs; ")
                .append("do not edit. Regenerate with\n")
                .append("     mvn -pl rhino-flink-connector -am test -Dtest=MetricsDocsTest ")
                .append(
                        "-Dsurefire.failIfNoSpecifiedTests=false -Drhino.docs.regenerate=true -->\n\n")
                .append(
                        "Rhino registers its metrics in Flink's metric system, beside Flink's own, ")
                .append("so every Flink reporter exports them. The Prometheus name is what ")
                .append("Flink's Prometheus reporter (`flink-metrics-prometheus`) exports, with ")
                .append("Flink's usual labels (`job_name`, `operator_name`, `subtask_index`, ")
                .append("`tm_id`, ...). Counters are exported as Prometheus gauges, as Flink does ")
                .append("for all its counters. A Grafana dashboard over these names is in ")
                .append("[`grafana/rhino-dashboard.json`](grafana/rhino-dashboard.json); ")
                .append("[`operations.md`](operations.md) says which metric to look at for ")
                .append("which symptom.\n");
        for (RhinoMetric.Scope scope : RhinoMetric.Scope.values()) {
            page.append("\n## ")
                    .append(Character.toUpperCase(scope.where().charAt(0)))
                    .append(scope.where().substring(1))
                    .append("\n\n")
                    .append("| Metric | Type | Prometheus name | Description |\n")
                    .append("|---|---|---|---|\n");
            for (RhinoMetric metric : RhinoMetric.values()) {
                if (metric.scope() != scope) {
                    continue;
                }
                page.append("| `")
                        .append(metric.metricName())
                        .append("` | ")
                        .append(metric.type().name().toLowerCase())
                        .append(" | `")
                        .append(metric.prometheusName())
                        .append("` | ")
                        .append(metric.description().replace("|", "\\|"))
                        .append(" |\n");
            }
        }
        return page.toString();
    }
}
