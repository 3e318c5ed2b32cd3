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

package io.rhino.flink.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.rhino.flink.reconfiguration.ReplicationView;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.flink.state.RestoreSource;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.junit.jupiter.api.Test;

/** What readers see of an operator: whole snapshots, none of them changed under their feet. */
class OperatorReadModelTest {

    private final RhinoOperatorSpec spec = new RhinoOperatorSpec("counts", 128, 6, 3, 3);
    private final OperatorReadModel model = new OperatorReadModel(new JobID(), spec);

    @Test
    void beforeTheManagerRunsNothingIsMeasured() {
        assertThat(model.manager()).isEmpty();
        assertThat(model.recordsPerSecond()).hasSize(6).containsOnly(0.0);
        assertThat(model.stateBytes(0)).isEqualTo(-1);
        assertThat(model.replication()).isEqualTo(ReplicationView.NONE);
        assertThat(model.replicaHolders()).isEmpty();
        assertThat(model.servedOverRest()).isFalse();
    }

    @Test
    void gatesAreListedWhileTheyRunAndAReaderKeepsWhatItRead() {
        model.gateLocated(1, "tm-1", Map.of());
        model.gateLocated(0, "tm-0", Map.of());
        model.gateReported(0, Map.of(), 250.0, null);
        model.gateReported(1, Map.of(), Double.NaN, null);
        Map<Integer, String> read = model.taskManagerBySubtask();
        assertThat(read).containsExactly(entry(0, "tm-0"), entry(1, "tm-1"));
        assertThat(model.busyTimeMsPerSecond()).containsExactly(entry(0, 250.0));

        model.gateGone(0);
        assertThat(read).as("read before the gate went").hasSize(2);
        assertThat(model.taskManagerBySubtask()).containsExactly(entry(1, "tm-1"));
        assertThat(model.taskManagerOf(0)).isEmpty();
        assertThat(model.busyTimeMsPerSecond()).isEmpty();

        model.allGatesGone();
        assertThat(model.taskManagerBySubtask()).isEmpty();
    }

    @Test
    void eachVnodeKeepsWhereItsLastRestoreTookIt() {
        model.gateLocated(
                0, "tm-0", Map.of(0, RestoreSource.REPLICA, 1, RestoreSource.CHECKPOINT_STORAGE));
        model.gateLocated(1, "tm-1", Map.of(2, RestoreSource.PEER_REPLICA));
        model.gateGone(0);
        // a restart of subtask 0 restores vnode 1 again, from its task-local copy this time
        model.gateLocated(0, "tm-0", Map.of(1, RestoreSource.TASK_LOCAL));
        // a gate that started without state reports nothing and changes nothing
        model.gateLocated(1, "tm-1", Map.of());

        assertThat(model.restoreSourceByVnode())
                .containsExactly(
                        entry(0, RestoreSource.REPLICA),
                        entry(1, RestoreSource.TASK_LOCAL),
                        entry(2, RestoreSource.PEER_REPLICA));
        assertThat(RestoreSource.PEER_REPLICA.wireName()).isEqualTo("peer-replica");
    }
}
