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

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * One version's schema of a CustomResourceDefinition, and what the API server would object to in a
 * resource: the schema's violations (types, enums, required fields) and fields the schema does not
 * know, which the server prunes silently and {@code kubectl --validate=strict} refuses.
 */
final class CrdSchema {

    private final String source;
    private final JsonNode openApiSchema;
    private final JsonSchema validator;

    private CrdSchema(String source, JsonNode openApiSchema) {
        this.source = source;
        this.openApiSchema = openApiSchema;
        // a CRD's OpenAPI v3 schema is draft 4 JSON Schema plus x-kubernetes-* keywords
        this.validator =
                JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(openApiSchema);
    }

    /** The schema of {@code version} in the CRD at {@code file}. */
    static CrdSchema fromFile(Path file, String version) throws IOException {
        return of(file.toString(), Files.readString(file), version);
    }

    /** The schema of {@code version} in the CRD at class path resource {@code resource}. */
    static CrdSchema fromClassPath(String resource, String version) throws IOException {
        try (InputStream in = CrdSchema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("No " + resource + " on the class path");
            }
            return of(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8), version);
        }
    }

    private static CrdSchema of(String source, String yaml, String version) throws IOException {
        JsonNode crd = DeploymentFiles.YAML.readTree(yaml);
        for (JsonNode v : crd.path("spec").path("versions")) {
            if (version.equals(v.path("name").asText())) {
                return new CrdSchema(source, v.path("schema").path("openAPIV3Schema"));
            }
        }
        throw new IOException(source + " has no version " + version);
    }

    String source() {
        return source;
    }

    /** The enum a property of the schema allows, e.g. {@code spec.flinkVersion}. */
    List<String> enumOf(String... path) {
        JsonNode node = openApiSchema;
        for (String segment : path) {
            node = node.path("properties").path(segment);
        }
        List<String> values = new ArrayList<>();
        node.path("enum").forEach(v -> values.add(v.asText()));
        return values;
    }

    /** Every objection, as {@code path: message}. */
    List<String> problems(JsonNode resource) {
        List<String> problems = new ArrayList<>();
        for (ValidationMessage message : validator.validate(resource)) {
            problems.add(message.getInstanceLocation() + ": " + message.getMessage());
        }
        unknownFields(openApiSchema, resource, "$", problems);
        return problems;
    }

    /** Fields every resource has, which a CRD's schema need not name at its root. */
    private static boolean isObjectField(String path, String field) {
        return path.equals("$")
                && (field.equals("apiVersion") || field.equals("kind") || field.equals("metadata"));
    }

    private static void unknownFields(
            JsonNode schema, JsonNode value, String path, List<String> problems) {
        if (schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
            return;
        }
        if (value.isArray() && schema.has("items")) {
            for (int i = 0; i < value.size(); i++) {
                unknownFields(schema.get("items"), value.get(i), path + "[" + i + "]", problems);
            }
        } else if (value.isObject()) {
            JsonNode properties = schema.path("properties");
            JsonNode additional = schema.path("additionalProperties");
            for (Iterator<String> it = value.fieldNames(); it.hasNext(); ) {
                String field = it.next();
                if (properties.has(field)) {
                    unknownFields(
                            properties.get(field), value.get(field), path + "." + field, problems);
                } else if (additional.isObject()) {
                    unknownFields(additional, value.get(field), path + "." + field, problems);
                } else if (properties.size() > 0
                        && !additional.asBoolean(false)
                        && !isObjectField(path, field)) {
                    problems.add(path + "." + field + ": unknown field");
                }
            }
        }
    }
}
