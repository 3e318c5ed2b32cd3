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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Ships through a local directory, but the first shipment after it is armed throws or stalls, in
 * the origin, after alignment and before shipping. The flag is static: the function is rebuilt
 * after the failure it causes.
 */
public final class FailingOnceStateTransfer implements StateTransfer {

    /** What the armed shipment does. */
    public enum Fault {
        THROW,
        /**
         * Throws once another vnode of the handover was opened on its target (or after 1.5 s), so
         * that the handover fails with part of its vnodes already installed.
         */
        THROW_AFTER_AN_INSTALL,
        STALL,
        /** Ships, but only after 8 seconds. */
        SLOW
    }

    private static final Map<String, AtomicReference<Fault>> ARMED = new ConcurrentHashMap<>();
    private static final Map<String, AtomicInteger> INSTALLS_SINCE_ARMED =
            new ConcurrentHashMap<>();
    private static final Map<String, Integer> INSTALLS_BEFORE_FAILURE = new ConcurrentHashMap<>();

    private final String runId;
    private final StateTransfer delegate = new LocalDirectoryStateTransfer();

    public FailingOnceStateTransfer(String runId) {
        this.runId = runId;
        ARMED.put(runId, new AtomicReference<>());
        INSTALLS_SINCE_ARMED.put(runId, new AtomicInteger());
    }

    /** The next shipment fails this way. */
    public static void arm(String runId, Fault fault) {
        INSTALLS_SINCE_ARMED.get(runId).set(0);
        ARMED.get(runId).set(fault);
    }

    /** Vnodes opened on their targets before a {@link Fault#THROW_AFTER_AN_INSTALL} threw. */
    public static int installsBeforeFailure(String runId) {
        return INSTALLS_BEFORE_FAILURE.getOrDefault(runId, -1);
    }

    @Override
    public Shipment ship(
            VnodeKeyedStateBackend<?> origin, int vnode, int targetSubtask, HandoverId handover)
            throws Exception {
        Fault fault = ARMED.get(runId).getAndSet(null);
        if (fault == Fault.THROW) {
            throw new IllegalStateException("Injected failure while shipping vnode " + vnode);
        }
        if (fault == Fault.THROW_AFTER_AN_INSTALL) {
            AtomicInteger installs = INSTALLS_SINCE_ARMED.get(runId);
            long deadline = System.nanoTime() + 1_500_000_000L;
            while (installs.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            INSTALLS_BEFORE_FAILURE.put(runId, installs.get());
            throw new IllegalStateException(
                    "Injected failure while shipping vnode "
                            + vnode
                            + " after "
                            + installs.get()
                            + " vnodes of the handover were opened on their targets");
        }
        if (fault == Fault.SLOW) {
            Thread.sleep(8_000);
        }
        if (fault == Fault.STALL) {
            Thread.sleep(30_000); // interrupted when the job is cancelled for the rollback
        }
        return delegate.ship(origin, vnode, targetSubtask, handover);
    }

    @Override
    public Leftovers install(VnodeInstallTarget target, int vnode, Serializable payload)
            throws Exception {
        Leftovers leftovers = delegate.install(target, vnode, payload);
        INSTALLS_SINCE_ARMED.get(runId).incrementAndGet();
        return leftovers;
    }
}
