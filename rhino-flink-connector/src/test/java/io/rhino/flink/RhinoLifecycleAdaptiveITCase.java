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

import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The random lifecycle campaign ({@link RandomLifecycleCampaign}) on the adaptive scheduler, which
 * adds rescales in place through Flink's resource requirements (FLIP-291, what the Kubernetes
 * operator's autoscaler does) to the other operations: an adaptive rescale after a handover, a
 * savepoint, a failover or a resubmission at another parallelism. {@code mvn verify} runs 12
 * operations with aligned checkpoints; {@code -Plifecycle} runs the campaign in both modes.
 */
class RhinoLifecycleAdaptiveITCase extends RandomLifecycleCampaign {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            RhinoClusters.threeTaskManagers(RhinoClusters.adaptiveScheduler());

    @Override
    boolean adaptiveScheduler() {
        return true;
    }

    @Override
    int smokeOperations() {
        return 12;
    }

    @Override
    boolean inSmoke(boolean unaligned) {
        return !unaligned;
    }
}
