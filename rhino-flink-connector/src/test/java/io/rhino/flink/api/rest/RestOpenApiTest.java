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

package io.rhino.flink.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rhino.flink.reconfiguration.OperatorView;
import io.rhino.flink.reconfiguration.RhinoDirectory;
import io.rhino.handover.operation.Reconfigurations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The OpenAPI document: served, checked in under docs/, and naming every route the API has. */
class RestOpenApiTest {

    private static final Path CHECKED_IN = Path.of("..", "docs", "rest-openapi.json");

    private final RhinoRestApi api =
            new RhinoRestApi(
                    new RhinoDirectory() {
                        @Override
                        public List<OperatorView> operators() {
                            return List.of();
                        }

                        @Override
                        public Reconfigurations reconfigurations() {
                            return new Reconfigurations(1, () -> 0);
                        }
                    },
                    1.2);

    @Test
    void theServedDocumentIsTheCheckedInOne() throws Exception {
        JsonNode served =
                api.handle(
                                io.netty.handler.codec.http.HttpMethod.GET,
                                "/rhino/v1/openapi.json",
                                "",
                                java.util.Optional.empty())
                        .body();
        JsonNode checkedIn = new ObjectMapper().readTree(Files.readString(CHECKED_IN));
        assertThat(served)
                .as(
                        "docs/rest-openapi.json must equal the served document (copy"
                                + " src/main/resources/io/rhino/flink/api/rest/openapi.json)")
                .isEqualTo(checkedIn);
    }

    @Test
    void everyRouteIsDocumentedAndEveryDocumentedOperationIsARoute() throws Exception {
        JsonNode paths = new ObjectMapper().readTree(Files.readString(CHECKED_IN)).get("paths");
        List<String> documented =
                paths.properties().stream()
                        .flatMap(
                                path ->
                                        path.getValue().properties().stream()
                                                .map(
                                                        op ->
                                                                op.getKey().toUpperCase(Locale.ROOT)
                                                                        + " "
                                                                        + path.getKey()))
                        .toList();
        assertThat(documented).containsExactlyInAnyOrderElementsOf(api.routes());
    }
}
