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

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rhino.cli.RhinoCli;
import io.rhino.flink.config.RhinoOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.junit.jupiter.api.Test;

/**
 * docs/getting-started.md shows what the code does: its Java blocks are the regions of {@link
 * GettingStartedSnippets} (which compile, and which {@code GettingStartedITCase} runs), its
 * configuration keys exist, its curl requests name routes of the REST API, its {@code bin/rhino}
 * commands parse, and its Maven version is the project's.
 */
class GettingStartedDocTest {

    private static final Path DOC = Path.of("..", "docs", "getting-started.md");
    private static final Path SNIPPETS =
            Path.of("src/test/java/io/rhino/flink/docs/GettingStartedSnippets.java");
    private static final Pattern FENCE = Pattern.compile("(?ms)^```(\\w+)\\n(.*?)^```$");
    private static final Pattern REGION =
            Pattern.compile("(?ms)^[ \\t]*// \\[START (\\w+)\\]\\n(.*?)^[ \\t]*// \\[END \\1\\]$");

    @Test
    void javaBlocksAreTheCompiledSnippets() throws Exception {
        Map<String, String> regions = new LinkedHashMap<>();
        Matcher region = REGION.matcher(Files.readString(SNIPPETS));
        while (region.find()) {
            regions.put(region.group(1), dedent(region.group(2)));
        }
        List<String> blocks = blocks("java");
        assertThat(regions).as("snippet regions in %s", SNIPPETS).isNotEmpty();
        for (String block : blocks) {
            assertThat(regions.values())
                    .as(
                            "a java block of docs/getting-started.md that is no region of "
                                    + "GettingStartedSnippets (copy the region into the guide):%n%s",
                            block)
                    .contains(block);
        }
        for (Map.Entry<String, String> snippet : regions.entrySet()) {
            assertThat(blocks)
                    .as("region '%s' of GettingStartedSnippets, in the guide", snippet.getKey())
                    .contains(snippet.getValue());
        }
    }

    @Test
    void configurationKeysExist() throws Exception {
        Set<String> known = new HashSet<>();
        for (Class<?> options :
                List.of(
                        RhinoOptions.class,
                        StateBackendOptions.class,
                        CheckpointingOptions.class,
                        StateRecoveryOptions.class,
                        CoreOptions.class,
                        PipelineOptions.class)) {
            known.addAll(keysOf(options));
        }
        List<String> keys = new ArrayList<>();
        for (String block : blocks("yaml")) {
            for (String line : block.split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    keys.add(line.substring(0, line.indexOf(':')).trim());
                }
            }
        }
        for (String prose : proseKeys()) {
            keys.add(prose);
        }
        assertThat(keys).isNotEmpty();
        assertThat(known).as("options Rhino and Flink know").containsAll(keys);
    }

    @Test
    void curlRequestsNameRoutesOfTheRestApi() throws Exception {
        Set<Pattern> routes = new HashSet<>();
        new ObjectMapper()
                .readTree(Path.of("..", "docs", "rest-openapi.json").toFile())
                .get("paths")
                .fieldNames()
                .forEachRemaining(
                        path -> routes.add(Pattern.compile(path.replaceAll("\\{\\w+}", "[^/]+"))));
        Matcher url = Pattern.compile("localhost:8082(/rhino/v1[^\\s')]*)").matcher(doc());
        int requests = 0;
        while (url.find()) {
            String path = url.group(1);
            requests++;
            assertThat(routes.stream().anyMatch(route -> route.matcher(path).matches()))
                    .as("%s is a route of docs/rest-openapi.json", path)
                    .isTrue();
        }
        assertThat(requests).isPositive();
    }

    @Test
    void cliCommandsParse() throws Exception {
        int commands = 0;
        for (String block : blocks("bash")) {
            for (String line : block.split("\n")) {
                if (!line.startsWith("bin/rhino ")) {
                    continue;
                }
                commands++;
                List<String> args = new ArrayList<>(List.of("--url", "http://127.0.0.1:1"));
                for (String word : line.substring("bin/rhino ".length()).trim().split("\\s+")) {
                    args.add(word.equals("$JOB") ? "0123456789abcdef0123456789abcdef" : word);
                }
                StringWriter err = new StringWriter();
                int code =
                        RhinoCli.run(
                                args.toArray(String[]::new),
                                new PrintWriter(new StringWriter()),
                                new PrintWriter(err));
                assertThat(code)
                        .as("'%s' parses and only fails to reach the server: %s", line, err)
                        .isEqualTo(4);
            }
        }
        assertThat(commands).isPositive();
    }

    @Test
    void mavenVersionIsTheProjects() throws Exception {
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher parent = Pattern.compile("<version>([^<]+)</version>").matcher(pom);
        assertThat(parent.find()).isTrue();
        assertThat(blocks("xml"))
                .singleElement()
                .asString()
                .contains("<groupId>io.rhino</groupId>")
                .contains("<artifactId>rhino-flink-connector</artifactId>")
                .contains("<version>" + parent.group(1) + "</version>");
    }

    /** `rhino.*` and Flink keys the prose names in backticks with a value. */
    private static List<String> proseKeys() throws Exception {
        List<String> keys = new ArrayList<>();
        Matcher key = Pattern.compile("`([a-z][a-z0-9.-]+\\.[a-z0-9.-]+): [^`]+`").matcher(doc());
        while (key.find()) {
            keys.add(key.group(1));
        }
        return keys;
    }

    private static Set<String> keysOf(Class<?> options) throws IllegalAccessException {
        Set<String> keys = new HashSet<>();
        for (Field field : options.getFields()) {
            if (Modifier.isStatic(field.getModifiers())
                    && ConfigOption.class.isAssignableFrom(field.getType())) {
                ConfigOption<?> option = (ConfigOption<?>) field.get(null);
                keys.add(option.key());
                for (FallbackKey fallback : option.fallbackKeys()) {
                    keys.add(fallback.getKey());
                }
            }
        }
        return keys;
    }

    private static List<String> blocks(String language) throws Exception {
        List<String> blocks = new ArrayList<>();
        Matcher fence = FENCE.matcher(doc());
        while (fence.find()) {
            if (fence.group(1).equals(language)) {
                blocks.add(fence.group(2).stripTrailing());
            }
        }
        return blocks;
    }

    private static String doc() throws Exception {
        return Files.readString(DOC);
    }

    /** The lines without their common indentation, blank lines empty, no trailing newline. */
    private static String dedent(String text) {
        String[] lines = text.stripTrailing().split("\n");
        int indent = Integer.MAX_VALUE;
        for (String line : lines) {
            if (!line.isBlank()) {
                indent = Math.min(indent, line.length() - line.stripLeading().length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String line : lines) {
            out.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
        }
        return out.toString().stripTrailing();
    }
}
