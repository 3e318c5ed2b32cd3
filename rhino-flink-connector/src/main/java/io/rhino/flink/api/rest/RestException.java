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

import io.netty.handler.codec.http.HttpResponseStatus;

/** A request the API refuses, with the status and the message the client gets. */
final class RestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient HttpResponseStatus status;

    RestException(HttpResponseStatus status, String message) {
        super(message);
        this.status = status;
    }

    HttpResponseStatus status() {
        return status;
    }

    static RestException badRequest(String message) {
        return new RestException(HttpResponseStatus.BAD_REQUEST, message);
    }

    static RestException notFound(String message) {
        return new RestException(HttpResponseStatus.NOT_FOUND, message);
    }
}
