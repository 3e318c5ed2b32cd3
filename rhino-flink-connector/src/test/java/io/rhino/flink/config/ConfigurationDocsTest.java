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

package io.rhino.flink.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/configuration.md is exactly what the options in the code render to. */
class ConfigurationDocsTest {

    private static final Path DOC = Path.of("..", "docs", "configuration.md");

    @Test
    void configurationReferenceIsUpToDate() throws Exception {
        String rendered = ConfigurationDocs.render();
        if (Boolean.getBoolean("rhino.docs.regenerate")) {
            Files.writeString(DOC, rendered, StandardCharsets.UTF_8);
        }
        assertThat(DOC).as("docs/configuration.md exists").exists();
        assertThat(Files.readString(DOC, StandardCharsets.UTF_8))
                .as(
                        "docs/configuration.md is stale; regenerate it with: mvn -pl "
                                + "rhino-flink-connector -am test -Dtest=ConfigurationDocsTest "
                                + "-Dsurefire.failIfNoSpecifiedTests=false "
                                + "-Drhino.docs.regenerate=true")
                .isEqualTo(rendered);
    }
}
