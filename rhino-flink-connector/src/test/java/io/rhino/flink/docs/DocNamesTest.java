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

package io.rhino.flink.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.metrics.RhinoMetric;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.junit.jupiter.api.Test;

/**
 * The guides name only options and metrics that exist: every {@code rhino.*} key in them is an
 * option of {@link RhinoOptions}, every Rhino metric a {@link RhinoMetric}. (The Prometheus names
 * they use are checked against a live scrape by {@code PrometheusMetricsITCase}.)
 */
class DocNamesTest {

    private static final Pattern OPTION = Pattern.compile("(?<![\\w.])rhino(\\.[a-z0-9-]+)+");
    private static final Pattern METRIC =
            Pattern.compile(
                    "\\b(rhino[A-Z]\\w*|handovers[A-Z]\\w*|handoverInFlight|lastHandover\\w*Ms"
                            + "|autoBalance[A-Z]\\w*|loadImbalance)\\b");
    private static final Set<String> GUIDES = Set.of("operations.md", "getting-started.md");

    @Test
    void optionsTheGuidesNameExist() throws Exception {
        Set<String> known = new HashSet<>();
        for (Field field : RhinoOptions.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers())
                    && ConfigOption.class.isAssignableFrom(field.getType())) {
                known.add(((ConfigOption<?>) field.get(null)).key());
            }
        }
        for (String guide : GUIDES) {
            Set<String> named = find(OPTION, guide);
            assertThat(named).as("options named in %s", guide).isNotEmpty();
            assertThat(known).as("options of RhinoOptions, against %s", guide).containsAll(named);
        }
    }

    @Test
    void metricsTheGuidesNameExist() throws Exception {
        Set<String> known = new HashSet<>();
        Arrays.stream(RhinoMetric.values()).forEach(m -> known.add(m.metricName()));
        Set<String> named = find(METRIC, "operations.md");
        named.remove("lastHandoverMs"); // "lastHandover*Ms", the phase gauges as a family
        assertThat(named).isNotEmpty();
        assertThat(known).as("metrics of RhinoMetric, against operations.md").containsAll(named);
    }

    private static Set<String> find(Pattern pattern, String guide) throws Exception {
        String text = Files.readString(Path.of("..", "docs", guide)).replace("*", "");
        Set<String> found = new TreeSet<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            found.add(matcher.group());
        }
        return found;
    }
}
