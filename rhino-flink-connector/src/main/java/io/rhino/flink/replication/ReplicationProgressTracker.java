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

import io.rhino.flink.metrics.RhinoMetric;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;

/**
 * Follows one gate subtask's replication rounds (told by the asynchronous checkpoint threads) for
 * its metrics and its reports to the coordinator.
 */
public final class ReplicationProgressTracker implements PeerVnodeReplication.Listener {

    private final Counter replicatedBytes = new SimpleCounter();
    private final Counter failures = new SimpleCounter();
    private long lastCheckpoint = -1;
    private long replicatedAtNanos;
    private long lastCheckpointBytes;
    private long lastRoundMillis;
    private String lastFailure;
    private volatile int chainLength;

    /** Registers the subtask's replication metrics in {@code group}. */
    public ReplicationProgressTracker register(MetricGroup group) {
        RhinoMetric.REPLICATED_BYTES.counter(group, replicatedBytes);
        RhinoMetric.REPLICATION_FAILURES.counter(group, failures);
        RhinoMetric.LAST_REPLICATED_CHECKPOINT.gauge(group, this::lastCheckpoint);
        RhinoMetric.REPLICATION_LAG_MS.gauge(group, () -> snapshot().ageMillis());
        RhinoMetric.REPLICATION_CHAIN_LENGTH.gauge(group, () -> chainLength);
        return this;
    }

    /** The number of other TaskManagers checkpoints now go to (0: not replicated). */
    public void chainChanged(int length) {
        chainLength = length;
    }

    @Override
    public synchronized void replicated(long checkpointId, long bytesSent, long roundMillis) {
        replicatedBytes.inc(bytesSent);
        if (checkpointId > lastCheckpoint) {
            lastCheckpoint = checkpointId;
            replicatedAtNanos = System.nanoTime();
            lastCheckpointBytes = bytesSent;
            lastRoundMillis = roundMillis;
        }
    }

    @Override
    public synchronized void failed(long checkpointId, Throwable cause) {
        failures.inc();
        lastFailure = "checkpoint " + checkpointId + ": " + cause;
    }

    public synchronized long lastCheckpoint() {
        return lastCheckpoint;
    }

    /** The progress as of now. */
    public synchronized ReplicationProgress snapshot() {
        long age = lastCheckpoint < 0 ? -1 : (System.nanoTime() - replicatedAtNanos) / 1_000_000;
        return new ReplicationProgress(
                lastCheckpoint,
                age,
                lastCheckpointBytes,
                replicatedBytes.getCount(),
                lastRoundMillis,
                failures.getCount(),
                lastFailure);
    }
}
