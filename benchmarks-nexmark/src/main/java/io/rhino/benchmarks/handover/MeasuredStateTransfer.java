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

package io.rhino.benchmarks.handover;

import io.rhino.core.handover.HandoverId;
import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.handover.StateTransfer;
import io.rhino.flink.state.VnodeInstallTarget;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import java.io.Serializable;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link LocalDirectoryStateTransfer} that also counts, per run, the bytes the exports had to copy
 * (the delta since the last checkpoint; the rest is hard-linked).
 */
public final class MeasuredStateTransfer implements StateTransfer {

    private static final long serialVersionUID = 1L;
    private static final Map<String, LongAdder> COPIED_BYTES_BY_RUN = new ConcurrentHashMap<>();
    private static final Map<String, LongAdder> EXPORT_NANOS_BY_RUN = new ConcurrentHashMap<>();

    private final String runId;
    private final StateTransfer delegate = new LocalDirectoryStateTransfer();

    public MeasuredStateTransfer(String runId) {
        this.runId = runId;
    }

    /** Bytes copied by the exports of run {@code runId} so far. */
    public static long copiedBytes(String runId) {
        LongAdder bytes = COPIED_BYTES_BY_RUN.get(runId);
        return bytes == null ? 0 : bytes.sum();
    }

    /** Milliseconds the exports of run {@code runId} took so far. */
    public static long exportMillis(String runId) {
        LongAdder nanos = EXPORT_NANOS_BY_RUN.get(runId);
        return nanos == null ? 0 : nanos.sum() / 1_000_000;
    }

    @Override
    public Shipment ship(
            VnodeKeyedStateBackend<?> origin, int vnode, int targetSubtask, HandoverId handover)
            throws Exception {
        long start = System.nanoTime();
        Shipment shipment = delegate.ship(origin, vnode, targetSubtask, handover);
        EXPORT_NANOS_BY_RUN
                .computeIfAbsent(runId, id -> new LongAdder())
                .add(System.nanoTime() - start);
        COPIED_BYTES_BY_RUN
                .computeIfAbsent(runId, id -> new LongAdder())
                .add(shipment.copiedBytes());
        return shipment;
    }

    @Override
    public Leftovers install(VnodeInstallTarget target, int vnode, Serializable payload)
            throws Exception {
        return delegate.install(target, vnode, payload);
    }
}
