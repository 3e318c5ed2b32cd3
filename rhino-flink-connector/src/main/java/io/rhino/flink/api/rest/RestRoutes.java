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

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The API's routes: a method and a path template ({@code /rhino/v1/jobs/{jobId}/...}) per endpoint.
 * Matches a request's decoded path segments; tells a wrong method (405, with the allowed ones) from
 * an unknown path (404).
 */
final class RestRoutes {

    /** A matched request: its path parameters by template name, its body, its bearer token. */
    record Call(Map<String, String> parameters, String body, Optional<String> token) {
        String parameter(String name) {
            return parameters.get(name);
        }
    }

    private record Route(HttpMethod method, String template, Function<Call, RestResponse> handler) {
        Optional<Map<String, String>> match(List<String> segments) {
            String[] parts = template.substring(1).split("/");
            if (parts.length != segments.size()) {
                return Optional.empty();
            }
            Map<String, String> parameters = new LinkedHashMap<>();
            for (int i = 0; i < parts.length; i++) {
                if (parts[i].startsWith("{")) {
                    parameters.put(parts[i].substring(1, parts[i].length() - 1), segments.get(i));
                } else if (!parts[i].equals(segments.get(i))) {
                    return Optional.empty();
                }
            }
            return Optional.of(parameters);
        }
    }

    private final List<Route> routes = new ArrayList<>();
    private final Consumer<Call> guard;

    /** Routes whose every matched call passes {@code guard} first (it throws to refuse). */
    RestRoutes(Consumer<Call> guard) {
        this.guard = guard;
    }

    RestRoutes add(HttpMethod method, String template, Function<Call, RestResponse> handler) {
        routes.add(new Route(method, template, handler));
        return this;
    }

    /** Every route as "METHOD template", in the order added. */
    List<String> describe() {
        return routes.stream().map(r -> r.method() + " " + r.template()).toList();
    }

    RestResponse dispatch(HttpMethod method, String uri, String body, Optional<String> token) {
        List<String> segments = segmentsOf(uri);
        TreeSet<String> allowed = new TreeSet<>();
        for (Route route : routes) {
            Optional<Map<String, String>> parameters = route.match(segments);
            if (parameters.isEmpty()) {
                continue;
            }
            if (route.method().equals(method)) {
                Call call = new Call(parameters.get(), body, token);
                guard.accept(call);
                return route.handler().apply(call);
            }
            allowed.add(route.method().name());
        }
        if (!allowed.isEmpty()) {
            return new RestResponse(
                    io.netty.handler.codec.http.HttpResponseStatus.METHOD_NOT_ALLOWED,
                    RhinoRestApi.errors(
                            method
                                    + " is not allowed on "
                                    + new QueryStringDecoder(uri).rawPath()
                                    + "; allowed: "
                                    + String.join(", ", allowed)),
                    String.join(", ", allowed),
                    null);
        }
        throw RestException.notFound(
                "No such resource: "
                        + new QueryStringDecoder(uri).rawPath()
                        + " (the API lives under /rhino/v1; see /rhino/v1/openapi.json)");
    }

    /**
     * The decoded, non-empty path segments; a segment may hold an encoded '/' or ':'.
     *
     * @throws RestException 400 for a malformed percent-escape
     */
    private static List<String> segmentsOf(String uri) {
        String rawPath = new QueryStringDecoder(uri).rawPath();
        List<String> segments = new ArrayList<>();
        for (String raw : rawPath.split("/")) {
            if (!raw.isEmpty()) {
                segments.add(decode(raw));
            }
        }
        return segments;
    }

    private static String decode(String raw) {
        try {
            return QueryStringDecoder.decodeComponent(raw);
        } catch (IllegalArgumentException e) {
            throw RestException.badRequest(
                    "The path segment '"
                            + (raw.length() > 60 ? raw.substring(0, 60) + "..." : raw)
                            + "' has a malformed percent-escape ("
                            + e.getMessage()
                            + "); encode '%' as %25 and every other escape as % and two hex"
                            + " digits");
        }
    }
}
