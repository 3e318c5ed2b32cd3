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

package io.rhino.benchmarks.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A service's {@code FLINK_PROPERTIES} as the official Flink 2.2.1 image's entrypoint reads it: one
 * {@code key: value} per line, every whitespace character of a line deleted, the key before the
 * first colon. Checks that the file's lines survive that unchanged.
 */
final class FlinkProperties {

    /** A key, a colon, spaces, a value without whitespace or characters the shell would glob. */
    private static final Pattern LINE = Pattern.compile("^[A-Za-z0-9._-]+: *[^\\s*?\\[]+$");

    private FlinkProperties() {}

    /**
     * Parses {@code text} (as compose passes it: {@code $$} already turned into {@code $}).
     *
     * @param where the service, for messages
     */
    static Map<String, String> parse(String where, String text) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty()) {
                continue;
            }
            assertThat(line)
                    .as("%s: FLINK_PROPERTIES line (the entrypoint deletes whitespace)", where)
                    .matches(LINE);
            String squeezed = line.replaceAll("\\s", "");
            int colon = squeezed.indexOf(':');
            String key = squeezed.substring(0, colon);
            assertThat(properties).as("%s: %s set twice", where, key).doesNotContainKey(key);
            properties.put(key, squeezed.substring(colon + 1));
        }
        return properties;
    }

    /**
     * Compose's own interpolation: {@code $$} is a literal {@code $}, any other {@code $} is not.
     */
    static String unescapeCompose(String where, String value) {
        assertThat(value.replace("$$", ""))
                .as("%s: a single $ is interpolated by compose from the host (write $$)", where)
                .doesNotContain("$");
        return value.replace("$$", "$");
    }
}
