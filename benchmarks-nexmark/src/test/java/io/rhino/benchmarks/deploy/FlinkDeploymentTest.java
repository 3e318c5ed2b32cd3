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
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks docker/k8s/ without a cluster: the FlinkDeployment against the Flink Kubernetes Operator's
 * CRD and Rhino's options, and the Service against the JobManager it selects.
 *
 * <p>The CRD comes from {@code org.apache.flink:flink-kubernetes-operator-api} 1.10.0, the newest
 * release on the Maven repository this build uses, whose {@code flinkVersion} enum ends at {@code
 * v1_20}: Flink 2.2 needs operator 1.13 or later. With that CRD the one objection allowed is that
 * enum; {@code -Drhino.k8s.crd=<flinkdeployments...-v1.yml of a newer operator>} validates against
 * another CRD, which must accept the file whole.
 */
class FlinkDeploymentTest {

    private static final String CRD_RESOURCE =
            "META-INF/fabric8/flinkdeployments.flink.apache.org-v1.yml";

    private static JsonNode deployment;
    private static JsonNode service;
    private static Map<String, String> flinkConfiguration;

    @BeforeAll
    static void read() throws IOException {
        Path k8s = DeploymentFiles.dockerDirectory().resolve("k8s");
        deployment = DeploymentFiles.read(k8s.resolve("flink-deployment.yaml"));
        service = DeploymentFiles.read(k8s.resolve("rhino-rest-service.yaml"));
        flinkConfiguration = new LinkedHashMap<>();
        JsonNode config = deployment.path("spec").path("flinkConfiguration");
        for (Iterator<String> it = config.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            assertThat(config.get(key).isTextual())
                    .as(
                            "flinkConfiguration %s is a string (operators before 1.11 take only strings)",
                            key)
                    .isTrue();
            flinkConfiguration.put(key, config.get(key).asText());
        }
    }

    @Test
    void validatesAgainstTheOperatorsCrd() throws IOException {
        String override = System.getProperty("rhino.k8s.crd", "");
        CrdSchema crd =
                override.isEmpty()
                        ? CrdSchema.fromClassPath(CRD_RESOURCE, "v1beta1")
                        : CrdSchema.fromFile(Path.of(override), "v1beta1");
        List<String> problems = new ArrayList<>(crd.problems(deployment));
        String flinkVersion = deployment.path("spec").path("flinkVersion").asText();
        if (override.isEmpty()) {
            assertThat(crd.enumOf("spec", "flinkVersion")).doesNotContain(flinkVersion);
            assertThat(problems)
                    .as("objections of %s", crd.source())
                    .hasSize(1)
                    .allMatch(p -> p.startsWith("$.spec.flinkVersion: "));
        } else {
            assertThat(crd.enumOf("spec", "flinkVersion")).contains(flinkVersion);
            assertThat(problems).as("objections of %s", crd.source()).isEmpty();
        }
    }

    @Test
    void isAFlinkDeploymentOfThisFlinkWithAPinnedImage() {
        assertThat(deployment.path("apiVersion").asText()).isEqualTo("flink.apache.org/v1beta1");
        assertThat(deployment.path("kind").asText()).isEqualTo("FlinkDeployment");
        String[] version = DeploymentFiles.flinkVersion().split("\\.");
        assertThat(deployment.path("spec").path("flinkVersion").asText())
                .isEqualTo("v" + version[0] + "_" + version[1]);
        DeploymentFiles.pinnedTag("spec.image", deployment.path("spec").path("image").asText());
    }

    @Test
    void rhinosOptionsAreRealAndFitTheRescalesTheOperatorMayDo() {
        DeploymentFiles.checkRhinoOptions("flinkConfiguration", flinkConfiguration);
        assertThat(flinkConfiguration).containsEntry("jobmanager.scheduler", "adaptive");
        int vnodes = Integer.parseInt(flinkConfiguration.get("rhino.vnodes"));
        // a restore at another parallelism takes 1..vnodes (docs/architecture.md)
        assertThat(
                        Integer.parseInt(
                                flinkConfiguration.get("job.autoscaler.vertex.max-parallelism")))
                .isBetween(1, vnodes);
        assertThat(deployment.path("spec").path("job").path("parallelism").asInt())
                .isBetween(1, vnodes);
        assertThat(deployment.path("spec").path("job").path("upgradeMode").asText())
                .isEqualTo("last-state");
        assertThat(flinkConfiguration)
                .as("per pod, so left to each TaskManager's own address")
                .doesNotContainKey("rhino.replication.bind-host");
    }

    @Test
    void eachTaskManagerPodHasAReplicaVolumeAndTheReplicationPort() {
        JsonNode pod = deployment.path("spec").path("taskManager").path("podTemplate").path("spec");
        JsonNode container = mainContainer(pod);
        assertThat(portNumbers(container))
                .contains(Integer.parseInt(flinkConfiguration.get("rhino.replication.port")));
        JsonNode mount = container.path("volumeMounts").get(0);
        String mountPath = mount.path("mountPath").asText();
        assertThat(flinkConfiguration.get("rhino.replication.dir")).startsWith(mountPath + "/");
        assertThat(flinkConfiguration.get("process.taskmanager.working-dir"))
                .startsWith(mountPath + "/");
        JsonNode volume = null;
        for (JsonNode v : pod.path("volumes")) {
            if (v.path("name").asText().equals(mount.path("name").asText())) {
                volume = v;
            }
        }
        assertThat(volume).as("volume %s", mount.path("name").asText()).isNotNull();
        assertThat(volume.has("emptyDir")).as("each pod's own directory").isTrue();
    }

    @Test
    void theRestPortIsAServiceAndTheTokenComesFromASecret() {
        JsonNode pod = deployment.path("spec").path("jobManager").path("podTemplate").path("spec");
        JsonNode container = mainContainer(pod);
        int restPort = Integer.parseInt(flinkConfiguration.get("rhino.rest.port"));
        String portName = null;
        for (JsonNode port : container.path("ports")) {
            if (port.path("containerPort").asInt() == restPort) {
                portName = port.path("name").asText();
            }
        }
        assertThat(portName).as("JobManager container port %s", restPort).isNotNull();
        assertThat(flinkConfiguration.get("rhino.rest.bind-address")).isEqualTo("0.0.0.0");

        assertThat(service.path("kind").asText()).isEqualTo("Service");
        JsonNode port = service.path("spec").path("ports").get(0);
        assertThat(port.path("port").asInt()).isEqualTo(restPort);
        assertThat(port.path("targetPort").asText()).isEqualTo(portName);
        JsonNode selector = service.path("spec").path("selector");
        assertThat(selector.path("app").asText())
                .isEqualTo(deployment.path("metadata").path("name").asText());
        assertThat(selector.path("component").asText()).isEqualTo("jobmanager");

        boolean tokenFromSecret = false;
        for (JsonNode env : container.path("env")) {
            if (DeploymentFiles.namesSecret(env.path("name").asText())) {
                assertThat(env.has("value")).as("%s is no literal", env.path("name")).isFalse();
                tokenFromSecret |=
                        env.path("name").asText().equals("RHINO_REST_TOKEN")
                                && env.path("valueFrom").has("secretKeyRef");
            }
        }
        assertThat(tokenFromSecret).as("RHINO_REST_TOKEN from a Secret").isTrue();
        flinkConfiguration
                .keySet()
                .forEach(
                        key ->
                                assertThat(DeploymentFiles.namesSecret(key))
                                        .as("%s in flinkConfiguration", key)
                                        .isFalse());
    }

    private static JsonNode mainContainer(JsonNode pod) {
        for (JsonNode container : pod.path("containers")) {
            // the operator merges its container into the template's container of this name
            if (container.path("name").asText().equals("flink-main-container")) {
                return container;
            }
        }
        throw new AssertionError("no flink-main-container in " + pod);
    }

    private static List<Integer> portNumbers(JsonNode container) {
        List<Integer> ports = new ArrayList<>();
        container.path("ports").forEach(p -> ports.add(p.path("containerPort").asInt()));
        return ports;
    }
}
