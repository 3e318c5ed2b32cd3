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

package io.rhino.flink.replication;

import io.rhino.replication.PeerAddress;
import io.rhino.replication.PeerPolicy;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The replication services of each Rhino operator's gates, as its coordinator told the gates on
 * this TaskManager (with its chains), by the operator's scope (the path prefix of its replicas): a
 * peer's OPEN may make this member pass a file on only to a member of the operator the file belongs
 * to. An operator's members accumulate while it runs here (a chain changes among them; a
 * TaskManager that left keeps its place until the job's replicas go).
 */
final class JobReplicaMembers implements PeerPolicy {

    private final Map<String, Set<PeerAddress>> byScope = new ConcurrentHashMap<>();

    /** Adds the services ("host:port") of the gates of the operator of {@code scope}. */
    void admit(String scope, Collection<String> services) {
        Set<PeerAddress> members =
                byScope.computeIfAbsent(scope, s -> ConcurrentHashMap.newKeySet());
        for (String service : services) {
            members.add(PeerAddress.parse(service));
        }
    }

    /** Forgets the members of {@code scope}, with its replicas. */
    void forget(String scope) {
        byScope.remove(scope);
    }

    /** Only the members of the operator whose scope holds the file are hops. */
    @Override
    public boolean mayForward(String relativePath, PeerAddress hop) {
        for (Map.Entry<String, Set<PeerAddress>> scope : byScope.entrySet()) {
            if (relativePath.startsWith(scope.getKey() + "/")) {
                return scope.getValue().contains(hop);
            }
        }
        return false;
    }
}
