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

package io.rhino.flink;

import java.nio.file.Path;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * As {@link RescaleFromReplicasITCase} with Flink's task-local recovery on: Flink offers a
 * restoring subtask its local copies beside the handles, matched by key-group range, which failed
 * every restore in a loop while all of a checkpoint's handles claimed the same range (see {@code
 * ClaimedKeyGroups}).
 */
class RescaleWithLocalRecoveryITCase extends RescaleRestoreSources {

    private static final InMemoryReporter METRICS = InMemoryReporter.create();

    private static final Path LOCAL_STATE = RhinoClusters.localStateRoot("rhino-rescale-local");

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            RhinoClusters.threeTaskManagers(
                    RhinoClusters.withLocalRecovery(
                            METRICS.addToConfiguration(RhinoClusters.adaptiveScheduler()),
                            LOCAL_STATE));

    @Override
    InMemoryReporter metrics() {
        return METRICS;
    }

    @Override
    boolean throughRhino() {
        return true;
    }

    @Override
    Path localStateRoot() {
        return LOCAL_STATE;
    }
}
