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

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * What the REST API answers: a status, a JSON body and, for 405, the allowed methods; for 503, a
 * retry hint.
 */
record RestResponse(HttpResponseStatus status, JsonNode body, String allow, Integer retryAfter) {

    static RestResponse of(HttpResponseStatus status, JsonNode body) {
        return new RestResponse(status, body, null, null);
    }
}
