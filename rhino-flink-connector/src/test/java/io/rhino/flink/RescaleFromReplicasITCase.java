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

import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A rescale through the adaptive scheduler restores every vnode from a replica. */
class RescaleFromReplicasITCase extends RescaleRestoreSources {

    private static final InMemoryReporter METRICS = InMemoryReporter.create();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            RhinoClusters.threeTaskManagers(
                    METRICS.addToConfiguration(RhinoClusters.adaptiveScheduler()));

    @Override
    InMemoryReporter metrics() {
        return METRICS;
    }

    @Override
    boolean throughRhino() {
        return false;
    }

    @Override
    java.nio.file.Path localStateRoot() {
        return null;
    }
}
