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

package io.rhino.flink.testjobs;

import io.rhino.core.handover.HandoverId;
import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.handover.StateTransfer;
import io.rhino.flink.state.VnodeInstallTarget;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import java.io.Serializable;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Ships through a local directory; every install waits, once it started, until the test releases
 * the run (at most a minute), as a slow install of a large vnode would. Static state: the job's
 * copies and the test share it by run id.
 */
public final class BlockingInstallStateTransfer implements StateTransfer {

    private static final Map<String, CompletableFuture<Void>> STARTED = new ConcurrentHashMap<>();
    private static final Map<String, CompletableFuture<Void>> RELEASED = new ConcurrentHashMap<>();

    private final String runId;
    private final StateTransfer delegate = new LocalDirectoryStateTransfer();

    public BlockingInstallStateTransfer(String runId) {
        this.runId = runId;
        STARTED.put(runId, new CompletableFuture<>());
        RELEASED.put(runId, new CompletableFuture<>());
    }

    /** Waits until an install of the run started (and blocks). */
    public static void awaitInstallStarted(String runId, Duration timeout) throws Exception {
        STARTED.get(runId).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Lets the run's installs go on. */
    public static void release(String runId) {
        RELEASED.get(runId).complete(null);
    }

    /** Makes the run's held installs fail, as a broken install would. */
    public static void fail(String runId) {
        RELEASED.get(runId)
                .completeExceptionally(new IllegalStateException("Injected install failure"));
    }

    @Override
    public Shipment ship(
            VnodeKeyedStateBackend<?> origin, int vnode, int targetSubtask, HandoverId handover)
            throws Exception {
        return delegate.ship(origin, vnode, targetSubtask, handover);
    }

    @Override
    public Leftovers install(VnodeInstallTarget target, int vnode, Serializable payload)
            throws Exception {
        STARTED.get(runId).complete(null);
        RELEASED.get(runId).get(1, TimeUnit.MINUTES);
        return delegate.install(target, vnode, payload);
    }
}
