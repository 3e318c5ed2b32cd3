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

package io.rhino.flink.cluster;

import java.util.List;

/**
 * Where the processes of a {@link ProcessCluster} run: the address each binds to and announces, and
 * the command prefix that starts it there (none on this machine's loopback; {@code ip netns exec
 * <namespace>} on a {@link NetworkBed} host).
 */
public interface ClusterHosts {

    String jobManagerAddress();

    String taskManagerAddress(int index);

    /** Prepended to the JobManager's {@code java} command. */
    List<String> jobManagerLauncher();

    /** Prepended to TaskManager {@code index}'s {@code java} command. */
    List<String> taskManagerLauncher(int index);

    /** The JobManager on 127.0.0.1 and TaskManager i on 127.0.0.(i+2), all of this machine. */
    static ClusterHosts loopback() {
        return new ClusterHosts() {
            @Override
            public String jobManagerAddress() {
                return "127.0.0.1";
            }

            @Override
            public String taskManagerAddress(int index) {
                return ProcessCluster.taskManagerHost(index);
            }

            @Override
            public List<String> jobManagerLauncher() {
                return List.of();
            }

            @Override
            public List<String> taskManagerLauncher(int index) {
                return List.of();
            }

            @Override
            public String toString() {
                return "loopback";
            }
        };
    }
}
