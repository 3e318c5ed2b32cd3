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

package io.rhino.flink.reconfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class RestartRequirementsTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static JsonNode requirements() throws Exception {
        // the shape Flink's GET /jobs/:jobid/resource-requirements answers with
        return MAPPER.readTree(
                "{\"src\": {\"parallelism\": {\"lowerBound\": 1, \"upperBound\": 2}},"
                        + " \"gate\": {\"parallelism\": {\"lowerBound\": 1, \"upperBound\": 4}}}");
    }

    @Test
    void onlyTheGatesUpperBoundRises() throws Exception {
        JsonNode current = requirements();
        JsonNode raised = RestartRequirements.raised(current, "gate", 6);
        assertThat(raised.at("/gate/parallelism/upperBound").asInt()).isEqualTo(6);
        assertThat(raised.at("/gate/parallelism/lowerBound").asInt()).isEqualTo(1);
        assertThat(raised.get("src")).isEqualTo(current.get("src"));
        assertThat(current.at("/gate/parallelism/upperBound").asInt())
                .as("the requirements read are left as they were")
                .isEqualTo(4);
    }

    @Test
    void aLowerBoundAboveTheNewParallelismComesDownToIt() throws Exception {
        JsonNode current =
                MAPPER.readTree(
                        "{\"gate\": {\"parallelism\": {\"lowerBound\": 8, \"upperBound\": 8}}}");
        JsonNode raised = RestartRequirements.raised(current, "gate", 6);
        assertThat(raised.at("/gate/parallelism/lowerBound").asInt()).isEqualTo(6);
    }

    @Test
    void aVertexFlinkDoesNotNameIsRefusedNamingThoseItDoes() throws Exception {
        assertThatThrownBy(() -> RestartRequirements.raised(requirements(), "other", 6))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no job vertex other")
                .hasMessageContaining("[src, gate]");
        assertThat(RestartRequirements.path("abc")).isEqualTo("/jobs/abc/resource-requirements");
    }
}
