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

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

class ReplicationProgressTrackerTest {

    @Test
    void nothingReplicatedYetHasNoAge() {
        ReplicationProgress progress = new ReplicationProgressTracker().snapshot();
        assertThat(progress.lastCheckpoint()).isEqualTo(-1);
        assertThat(progress.ageMillis()).isEqualTo(-1);
        assertThat(progress.agedBy(5_000)).isEqualTo(progress);
    }

    @Test
    void followsTheNewestCheckpointAndSumsBytes() throws Exception {
        ReplicationProgressTracker tracker = new ReplicationProgressTracker();
        tracker.replicated(7, 1_000, 40);
        tracker.replicated(9, 300, 12);
        // a round of an older checkpoint ending late does not go back
        tracker.replicated(8, 50, 90);
        Thread.sleep(20);
        ReplicationProgress progress = tracker.snapshot();
        assertThat(progress.lastCheckpoint()).isEqualTo(9);
        assertThat(progress.lastCheckpointBytes()).isEqualTo(300);
        assertThat(progress.lastRoundMillis()).isEqualTo(12);
        assertThat(progress.totalBytes()).isEqualTo(1_350);
        assertThat(progress.ageMillis()).isGreaterThanOrEqualTo(20);
        assertThat(progress.agedBy(1_000).ageMillis()).isEqualTo(progress.ageMillis() + 1_000);
        assertThat(progress.failedRounds()).isZero();
        assertThat(progress.lastFailure()).isNull();
    }

    @Test
    void countsFailuresWithTheirCause() {
        ReplicationProgressTracker tracker = new ReplicationProgressTracker();
        tracker.replicated(3, 10, 1);
        tracker.failed(4, new IOException("peer 127.0.0.3:6130 closed the connection"));
        ReplicationProgress progress = tracker.snapshot();
        assertThat(progress.lastCheckpoint()).isEqualTo(3);
        assertThat(progress.failedRounds()).isEqualTo(1);
        assertThat(progress.lastFailure())
                .contains("checkpoint 4")
                .contains("127.0.0.3:6130 closed the connection");
    }

    @Test
    void registersItsMetrics() {
        java.util.Map<String, Metric> metrics = new java.util.HashMap<>();
        ReplicationProgressTracker tracker =
                new ReplicationProgressTracker()
                        .register(
                                new UnregisteredMetricsGroup() {
                                    @Override
                                    public <C extends Counter> C counter(String name, C counter) {
                                        metrics.put(name, counter);
                                        return counter;
                                    }

                                    @Override
                                    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
                                        metrics.put(name, gauge);
                                        return gauge;
                                    }
                                });
        tracker.chainChanged(2);
        tracker.replicated(5, 64, 3);
        tracker.failed(6, new IllegalStateException("timeout"));
        assertThat(((Counter) metrics.get("rhinoReplicatedBytes")).getCount()).isEqualTo(64);
        assertThat(((Counter) metrics.get("rhinoReplicationFailures")).getCount()).isEqualTo(1);
        assertThat(((Gauge<?>) metrics.get("rhinoLastReplicatedCheckpoint")).getValue())
                .isEqualTo(5L);
        assertThat(((Gauge<?>) metrics.get("rhinoReplicationChainLength")).getValue()).isEqualTo(2);
        assertThat((Long) ((Gauge<?>) metrics.get("rhinoReplicationLagMs")).getValue())
                .isNotNegative();
    }
}
