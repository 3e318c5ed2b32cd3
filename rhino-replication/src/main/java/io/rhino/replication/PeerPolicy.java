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

package io.rhino.replication;

/**
 * Which members a service passes files on to: a peer's OPEN names the rest of the chain, and
 * without a check any peer could make this member connect to any host and port. The owner of the
 * service (the connector, which learns each job's members from its JobManager) answers from the
 * chains it was told about. Asked on the service's event loop: answer from memory.
 */
@FunctionalInterface
public interface PeerPolicy {

    /** Whether the file at {@code relativePath} may be passed on to {@code hop}. */
    boolean mayForward(String relativePath, PeerAddress hop);

    /** Every hop: for a service whose callers all know each other (tests, benchmarks). */
    PeerPolicy ANY = (relativePath, hop) -> true;
}
