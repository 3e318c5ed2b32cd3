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

import io.rhino.flink.state.PathSegment;
import io.rhino.replication.PeerAddress;
import io.rhino.replication.PeerPolicy;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The replication services of each job's Rhino operators, as their coordinators told the job's
 * gates on this TaskManager (with each operator's chains): a peer's OPEN may make this member pass
 * a file of a job on only to one of them. A job's members accumulate while it runs here (a chain
 * changes among them; a TaskManager that left keeps its place until the job's replicas go).
 */
final class JobReplicaMembers implements PeerPolicy {

    private final Map<String, Set<PeerAddress>> byJobSegment = new ConcurrentHashMap<>();

    /** Adds the services ("host:port") of {@code job}'s gates. */
    void admit(String job, Collection<String> services) {
        Set<PeerAddress> members =
                byJobSegment.computeIfAbsent(
                        PathSegment.of(job), segment -> ConcurrentHashMap.newKeySet());
        for (String service : services) {
            members.add(PeerAddress.parse(service));
        }
    }

    /** Forgets {@code job}'s members, with its replicas. */
    void forget(String job) {
        byJobSegment.remove(PathSegment.of(job));
    }

    /** A replica path starts with its job's segment: only that job's members are hops. */
    @Override
    public boolean mayForward(String relativePath, PeerAddress hop) {
        int slash = relativePath.indexOf('/');
        Set<PeerAddress> members =
                slash < 0 ? null : byJobSegment.get(relativePath.substring(0, slash));
        return members != null && members.contains(hop);
    }
}
