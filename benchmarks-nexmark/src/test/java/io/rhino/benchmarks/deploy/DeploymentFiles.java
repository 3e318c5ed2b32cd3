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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.rhino.flink.config.ConfigurationDocs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.util.EnvironmentInformation;

/** What the checks of docker/ share: where the files are, YAML, image tags, Rhino's options. */
final class DeploymentFiles {

    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** {@code name:tag}, the tag neither empty nor {@code latest}; a registry port is allowed. */
    private static final Pattern PINNED_IMAGE =
            Pattern.compile("^[a-z0-9][a-z0-9./_:-]*?:(?<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})$");

    private static final Pattern SECRET_KEY = Pattern.compile("(?i).*(token|secret|password).*");

    private DeploymentFiles() {}

    /** docker/ of the repository; tests run in the module's directory. */
    static Path dockerDirectory() {
        Path dir = Path.of("").toAbsolutePath().getParent().resolve("docker");
        assertThat(dir.resolve("compose.yaml")).as("docker/ of the repository").exists();
        return dir;
    }

    static JsonNode read(Path file) throws IOException {
        return YAML.readTree(Files.readString(file));
    }

    /** The tag of a pinned image reference; fails on a missing tag or {@code latest}. */
    static String pinnedTag(String where, String image) {
        Matcher m = PINNED_IMAGE.matcher(image == null ? "" : image);
        assertThat(m.matches()).as("%s: image '%s' has a tag", where, image).isTrue();
        String tag = m.group("tag");
        assertThat(tag).as("%s: image '%s'", where, image).isNotEqualToIgnoringCase("latest");
        return tag;
    }

    /**
     * The Flink version the images and manifests ship: the one on the build's class path (e.g.
     * 2.2.1), unless a build against another Flink ({@code -Pflink-2.3}) names the version they
     * still ship in {@code rhino.images.flink-version}.
     */
    static String flinkVersion() {
        return System.getProperty(
                "rhino.images.flink-version", EnvironmentInformation.getVersion());
    }

    /**
     * Checks each {@code rhino.*} entry: the key is one of Rhino's options and the value parses as
     * the option's type. Values the container fills in ({@code ${VAR}}) are not parsed.
     */
    static void checkRhinoOptions(String where, Map<String, String> config) {
        Map<String, ConfigOption<?>> options = ConfigurationDocs.options();
        assertThat(options).as("Rhino's options").isNotEmpty();
        config.forEach(
                (key, value) -> {
                    if (!key.startsWith("rhino.")) {
                        return;
                    }
                    assertThat(options)
                            .as("%s: %s is an option of Rhino", where, key)
                            .containsKey(key);
                    if (value.contains("${")) {
                        return;
                    }
                    ConfigOption<?> option = options.get(key);
                    Object parsed = Configuration.fromMap(Map.of(key, value)).get(option);
                    assertThat(parsed).as("%s: %s: %s", where, key, value).isNotNull();
                });
    }

    /** Whether a key names a secret (token, secret, password). */
    static boolean namesSecret(String key) {
        return SECRET_KEY.matcher(key).matches();
    }
}
