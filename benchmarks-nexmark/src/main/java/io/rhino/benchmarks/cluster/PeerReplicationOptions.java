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

package io.rhino.benchmarks.cluster;

import io.rhino.flink.config.RhinoOptions;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;

/**
 * Rhino's replication as the benchmarks run it: every vnode checkpoint copied to one other
 * TaskManager ({@code rhino.replication.mode: peers}, factor 2, as in the paper).
 */
public final class PeerReplicationOptions {

    private PeerReplicationOptions() {}

    /** Sets factor-2 peer replication with replicas under {@code replicaDirectory}. */
    public static void factorTwo(Configuration config, Path replicaDirectory, String secret) {
        config.set(RhinoOptions.REPLICATION_MODE, "peers");
        config.set(RhinoOptions.REPLICATION_FACTOR, 2);
        config.set(RhinoOptions.REPLICATION_DIR, replicaDirectory.toString());
        config.set(RhinoOptions.REPLICATION_SECRET, secret);
    }
}
