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

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A request's JSON body, read with Jackson and checked field by field: every problem is a 400 that
 * names the field, what it got and what it expects; unknown fields are refused (a typo must not
 * silently mean "default").
 */
final class JsonBody {

    /**
     * Strict: trailing text after the object, and a key given twice (which of the two would count?)
     * are errors, not silently dropped.
     */
    static final ObjectMapper MAPPER =
            // Jackson's default buffer pool keeps a buffer in a thread local of every thread that
            // parsed, Flink's threads included: where Rhino sits in a job's jar, that buffer's
            // class would pin the job's class loader after the job left. A shared pool does not.
            JsonMapper.builder(
                            JsonFactory.builder()
                                    .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
                                    .build())
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .build();

    private final ObjectNode root;

    private JsonBody(ObjectNode root) {
        this.root = root;
    }

    /** Parses {@code text}; an empty body is an empty object. */
    static JsonBody parse(String text, Set<String> allowedFields) {
        if (text == null || text.isBlank()) {
            return new JsonBody(MAPPER.createObjectNode());
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw RestException.badRequest("The body is not valid JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw RestException.badRequest("The body must be a JSON object, got " + describe(node));
        }
        Set<String> unknown = new TreeSet<>();
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowedFields.contains(name)) {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty()) {
            throw RestException.badRequest(
                    "Unknown fields "
                            + unknown
                            + "; this request takes "
                            + new TreeSet<>(allowedFields));
        }
        return new JsonBody((ObjectNode) node);
    }

    Optional<String> optionalString(String field) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isTextual()) {
            throw wrongType(field, value, "a string");
        }
        return Optional.of(value.asText());
    }

    Optional<Double> optionalNumber(String field) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isNumber()) {
            throw wrongType(field, value, "a number");
        }
        double number = value.asDouble();
        if (!Double.isFinite(number)) {
            // e.g. 1e400: Jackson reads it as Infinity, which would pass any lower bound
            throw wrongType(field, value, "a finite number");
        }
        return Optional.of(number);
    }

    Optional<Boolean> optionalBoolean(String field) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isBoolean()) {
            throw wrongType(field, value, "true or false");
        }
        return Optional.of(value.booleanValue());
    }

    int requiredInt(String field) {
        return intOf(field, root.get(field));
    }

    /** The objects of a required array field. */
    List<JsonBody> requiredObjects(String field, Set<String> allowedFields) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            throw RestException.badRequest("Missing field '" + field + "'");
        }
        if (!value.isArray()) {
            throw wrongType(field, value, "an array");
        }
        List<JsonBody> items = new ArrayList<>();
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            String name = field + "[" + i + "]";
            if (!item.isObject()) {
                throw wrongType(name, item, "an object");
            }
            try {
                items.add(parse(item.toString(), allowedFields));
            } catch (RestException e) {
                throw RestException.badRequest(name + ": " + e.getMessage());
            }
        }
        return items;
    }

    private static int intOf(String field, JsonNode value) {
        if (value == null || value.isNull()) {
            throw RestException.badRequest("Missing field '" + field + "'");
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw wrongType(field, value, "an integer");
        }
        return value.intValue();
    }

    private static RestException wrongType(String field, JsonNode value, String expected) {
        return RestException.badRequest(
                "Field '" + field + "' must be " + expected + ", got " + describe(value));
    }

    private static String describe(JsonNode node) {
        if (node == null) {
            return "nothing";
        }
        String text = node.toString();
        return node.getNodeType().name().toLowerCase()
                + " "
                + (text.length() > 60 ? text.substring(0, 60) + "..." : text);
    }
}
