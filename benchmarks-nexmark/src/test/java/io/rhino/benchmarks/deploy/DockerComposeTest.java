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
import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.nexmark.NexmarkGeneratorMain;
import io.rhino.benchmarks.scenarios.NexmarkScenarios;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks docker/compose.yaml and docker/Dockerfile without a Docker engine: what {@code docker
 * compose up} would run is configured consistently with itself, with Rhino's options and with the
 * versions this build uses.
 */
class DockerComposeTest {

    private static final Pattern EXPOSE = Pattern.compile("(?m)^EXPOSE (.+)$");

    private static Path docker;
    private static JsonNode compose;
    private static JsonNode services;
    private static Map<String, Map<String, String>> flinkProperties;

    @BeforeAll
    static void read() throws IOException {
        docker = DeploymentFiles.dockerDirectory();
        compose = DeploymentFiles.read(docker.resolve("compose.yaml"));
        services = compose.get("services");
        flinkProperties = new HashMap<>();
        for (Iterator<String> it = services.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            JsonNode text = services.get(name).path("environment").get("FLINK_PROPERTIES");
            if (text != null) {
                String unescaped = FlinkProperties.unescapeCompose(name, text.asText());
                flinkProperties.put(name, FlinkProperties.parse(name, unescaped));
            }
        }
    }

    @Test
    void everyServiceHasAPinnedImageAndAHealthCheck() {
        assertThat(names(services)).contains("jobmanager", "kafka", "namenode", "datanode");
        for (String name : names(services)) {
            JsonNode service = services.get(name);
            DeploymentFiles.pinnedTag(name, service.path("image").asText(null));
            JsonNode test = service.path("healthcheck").path("test");
            assertThat(test.isArray() && test.size() > 1).as("%s: health check", name).isTrue();
            assertThat(test.get(0).asText()).as(name).isIn("CMD", "CMD-SHELL");
            for (String dependency : names(service.path("depends_on"))) {
                assertThat(names(services)).as("%s depends on", name).contains(dependency);
                assertThat(service.path("depends_on").path(dependency).path("condition").asText())
                        .as("%s waits for %s", name, dependency)
                        .isEqualTo("service_healthy");
            }
        }
    }

    @Test
    void imagesAreTheVersionsThisBuildUses() throws IOException {
        String dockerfile = Files.readString(docker.resolve("Dockerfile"));
        String flinkImage = argDefault(dockerfile, "FLINK_IMAGE");
        String tag = DeploymentFiles.pinnedTag("Dockerfile FLINK_IMAGE", flinkImage);
        assertThat(flinkImage).startsWith("flink:");
        assertThat(tag).isEqualTo(DeploymentFiles.flinkVersion() + "-scala_2.12-java17");
        assertThat(
                        argDefault(
                                Files.readString(docker.resolve("Dockerfile.nexmark")),
                                "FLINK_IMAGE"))
                .isEqualTo(flinkImage);
        String hadoopImage = argDefault(dockerfile, "HADOOP_IMAGE");
        DeploymentFiles.pinnedTag("Dockerfile HADOOP_IMAGE", hadoopImage);
        assertThat(services.path("namenode").path("image").asText()).isEqualTo(hadoopImage);
        assertThat(services.path("datanode").path("image").asText()).isEqualTo(hadoopImage);
        assertThat(services.path("kafka").path("image").asText())
                .isEqualTo("apache/kafka:" + AppInfoParser.getVersion());
        assertThat(dockerfile)
                .contains("rhino-flink-dist/target/rhino-flink-dist-0.1.0-SNAPSHOT.jar")
                .contains("/opt/flink/lib/");
    }

    @Test
    void eachTaskManagerHasItsOwnHostReplicaVolumeAndReplicationPort() throws IOException {
        List<String> taskManagers = servicesRunning("taskmanager");
        assertThat(taskManagers).hasSizeGreaterThanOrEqualTo(3);
        Set<String> hosts = new HashSet<>();
        Set<String> volumes = new HashSet<>();
        Set<String> exposed = exposedPorts();
        for (String name : taskManagers) {
            JsonNode service = services.get(name);
            Map<String, String> props = flinkProperties.get(name);
            DeploymentFiles.checkRhinoOptions(name, props);
            String host = service.path("hostname").asText();
            assertThat(hosts.add(host)).as("%s: host name %s is its own", name, host).isTrue();
            assertThat(props)
                    .as(name)
                    .containsEntry("taskmanager.host", host)
                    .containsEntry("taskmanager.resource-id", host)
                    .containsEntry("rhino.replication.bind-host", host);
            assertThat(service.path("healthcheck").path("test").get(1).asText())
                    .as("%s: health check looks for its own id", name)
                    .contains("\"id\":\"" + host + "\"");

            String volume = onlyVolume(name, service);
            String source = volume.substring(0, volume.indexOf(':'));
            String target = volume.substring(volume.indexOf(':') + 1);
            assertThat(volumes.add(source)).as("%s: volume %s is its own", name, source).isTrue();
            assertThat(compose.path("volumes").has(source))
                    .as("volume %s declared", source)
                    .isTrue();
            assertThat(props.get("rhino.replication.dir")).as(name).startsWith(target + "/");
            assertThat(props.get("process.taskmanager.working-dir"))
                    .as(name)
                    .startsWith(target + "/");

            String port = props.get("rhino.replication.port");
            assertThat(port).as("%s: one replication port", name).matches("[1-9][0-9]*");
            assertThat(exposed).as("Dockerfile EXPOSE").contains(port);
        }
    }

    @Test
    void theJobManagerServesRhinosRestApiOnItsPublishedPortWithAToken() throws IOException {
        JsonNode jobManager = services.get("jobmanager");
        Map<String, String> props = flinkProperties.get("jobmanager");
        DeploymentFiles.checkRhinoOptions("jobmanager", props);
        String restPort = props.get("rhino.rest.port");
        assertThat(containerPorts(jobManager)).contains(restPort, "8081");
        assertThat(exposedPorts()).contains(restPort, "8081");
        assertThat(props.get("rhino.rest.bind-address")).isEqualTo("0.0.0.0");
        // bound beyond loopback, the API must ask for a token (docs/rest-api.md)
        assertThat(props.get("rhino.rest.auth-token")).isEqualTo("${RHINO_REST_TOKEN}");
        assertThat(jobManager.path("environment").path("RHINO_REST_TOKEN_FILE").asText())
                .isEqualTo("/run/secrets/rhino_rest_token");
        assertThat(jobManager.path("secrets").toString()).contains("\"rhino_rest_token\"");
        for (String name : servicesRunning("taskmanager")) {
            assertThat(flinkProperties.get(name).get("jobmanager.rpc.address"))
                    .isEqualTo(jobManager.path("hostname").asText());
        }
    }

    @Test
    void optionsTheWholeClusterSharesAreEqualEverywhere() {
        Map<String, String> first = new HashMap<>();
        Map<String, String> firstService = new HashMap<>();
        flinkProperties.forEach(
                (service, props) ->
                        props.forEach(
                                (key, value) -> {
                                    if (isPerHost(key)) {
                                        return;
                                    }
                                    String seen = first.putIfAbsent(key, value);
                                    firstService.putIfAbsent(key, service);
                                    assertThat(value)
                                            .as(
                                                    "%s in %s and %s",
                                                    key, service, firstService.get(key))
                                            .isEqualTo(seen == null ? value : seen);
                                }));
        URI checkpoints = URI.create(first.get("execution.checkpointing.dir"));
        assertThat(checkpoints.getScheme()).isEqualTo("hdfs");
        assertThat(
                        services.path("namenode")
                                .path("environment")
                                .path("HDFS-SITE.XML_dfs.namenode.rpc-address")
                                .asText())
                .isEqualTo(checkpoints.getAuthority());
    }

    @Test
    void noSecretIsWrittenIntoTheFiles() throws IOException {
        flinkProperties.forEach(
                (service, props) ->
                        props.forEach(
                                (key, value) -> {
                                    if (DeploymentFiles.namesSecret(key)) {
                                        assertThat(value)
                                                .as(
                                                        "%s: %s comes from the environment",
                                                        service, key)
                                                .matches("\\$\\{[A-Z_]+\\}");
                                    }
                                }));
        for (String name : names(services)) {
            for (String variable : names(services.get(name).path("environment"))) {
                if (DeploymentFiles.namesSecret(variable)) {
                    assertThat(variable)
                            .as("%s: %s names a file", name, variable)
                            .endsWith("_FILE");
                    assertThat(services.get(name).path("environment").path(variable).asText())
                            .startsWith("/run/secrets/");
                }
            }
        }
        for (String secret : names(compose.path("secrets"))) {
            assertThat(compose.path("secrets").path(secret).path("file").asText())
                    .as("secret %s", secret)
                    .startsWith("./secrets/");
        }
        assertThat(Files.readAllLines(docker.resolve(".gitignore"))).contains("secrets/");
        String entrypoint = Files.readString(docker.resolve("rhino-entrypoint.sh"));
        assertThat(entrypoint).contains("RHINO_REST_TOKEN").contains("_FILE");
    }

    @Test
    void theBenchmarkServicesRunMainsWithFlagsTheyDeclare() {
        List<String> generator = command("nexmark-generator");
        assertThat(generator.get(0)).isEqualTo(NexmarkGeneratorMain.class.getName());
        Args flags = NexmarkGeneratorMain.declare();
        assertThat(flags.parse(generator.subList(1, generator.size()).toArray(String[]::new)))
                .isTrue();
        String kafkaListener =
                services.path("kafka")
                        .path("environment")
                        .path("KAFKA_ADVERTISED_LISTENERS")
                        .asText();
        assertThat(kafkaListener).isEqualTo("PLAINTEXT://" + flags.get("bootstrap-servers"));
        assertThat(
                        services.path("nexmark-generator")
                                .path("healthcheck")
                                .path("test")
                                .get(1)
                                .asText())
                .contains(flags.get("status-file"));

        List<String> scenarios = command("scenarios");
        assertThat(scenarios.get(0)).isEqualTo(NexmarkScenarios.class.getName());
        Args scenarioFlags = NexmarkScenarios.declare();
        assertThat(
                        scenarioFlags.parse(
                                scenarios.subList(1, scenarios.size()).toArray(String[]::new)))
                .isTrue();
        assertThat(services.path("scenarios").path("volumes").get(0).asText())
                .endsWith(":" + scenarioFlags.get("out"));
    }

    private static boolean isPerHost(String key) {
        return key.startsWith("taskmanager.")
                || key.startsWith("jobmanager.memory.")
                || key.startsWith("rhino.replication.bind-host")
                || key.startsWith("rhino.rest.");
    }

    private static List<String> servicesRunning(String command) {
        List<String> matching = new ArrayList<>();
        for (String name : names(services)) {
            if (command.equals(services.get(name).path("command").asText())) {
                matching.add(name);
            }
        }
        return matching;
    }

    private static String onlyVolume(String name, JsonNode service) {
        JsonNode volumes = service.path("volumes");
        assertThat(volumes.size()).as("%s: one volume", name).isEqualTo(1);
        return volumes.get(0).asText();
    }

    private static List<String> command(String service) {
        List<String> command = new ArrayList<>();
        services.path(service).path("command").forEach(arg -> command.add(arg.asText()));
        assertThat(command).as("%s: command", service).isNotEmpty();
        return command;
    }

    private static Set<String> containerPorts(JsonNode service) {
        Set<String> ports = new HashSet<>();
        service.path("ports")
                .forEach(p -> ports.add(p.asText().substring(p.asText().lastIndexOf(':') + 1)));
        return ports;
    }

    private static Set<String> exposedPorts() throws IOException {
        Matcher m = EXPOSE.matcher(Files.readString(docker.resolve("Dockerfile")));
        assertThat(m.find()).as("Dockerfile EXPOSE").isTrue();
        return Set.of(m.group(1).trim().split("\\s+"));
    }

    private static String argDefault(String dockerfile, String arg) {
        Matcher m = Pattern.compile("(?m)^ARG " + arg + "=(\\S+)$").matcher(dockerfile);
        assertThat(m.find()).as("ARG %s with a default", arg).isTrue();
        return m.group(1);
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        if (node != null && node.isObject()) {
            node.fieldNames().forEachRemaining(names::add);
        }
        return names;
    }
}
