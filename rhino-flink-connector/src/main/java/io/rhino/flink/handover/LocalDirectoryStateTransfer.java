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

package io.rhino.flink.handover;

import io.rhino.core.handover.HandoverId;
import io.rhino.flink.state.VnodeExport;
import io.rhino.flink.state.VnodeInstallTarget;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import java.io.File;
import java.io.Serializable;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.util.FileUtils;

/**
 * Ships a vnode through a directory on the local filesystem: the origin exports the vnode there
 * (hard links to files of completed checkpoints, copies of the delta), the target installs it by
 * hard-linking. Works when origin and target TaskManagers share a machine (MiniCluster, or a
 * multi-process cluster on one host).
 */
public final class LocalDirectoryStateTransfer implements StateTransfer {

    private static final long serialVersionUID = 1L;

    /** Where the export lies and its handle. */
    record LocalShipment(String directory, IncrementalLocalKeyedStateHandle handle)
            implements Serializable {}

    @Override
    public Shipment ship(
            VnodeKeyedStateBackend<?> origin, int vnode, int targetSubtask, HandoverId handover)
            throws Exception {
        VnodeExport export = exportLocally(origin, vnode, handover);
        return new Shipment(
                new LocalShipment(export.directory().toString(), export.handle()),
                export.copiedBytes());
    }

    /**
     * Exports the vnode into one flat directory per vnode and handover under the origin's transfer
     * directory: removing it after the install leaves nothing.
     */
    static VnodeExport exportLocally(
            VnodeKeyedStateBackend<?> origin, int vnode, HandoverId handover) throws Exception {
        File directory = new File(origin.transferDirectory(), handover.value() + "-vnode-" + vnode);
        return origin.exportVnode(vnode, directory.getAbsoluteFile().toPath());
    }

    @Override
    public Leftovers install(VnodeInstallTarget target, int vnode, Serializable payload)
            throws Exception {
        if (!(payload instanceof LocalShipment shipment)) {
            throw new IllegalArgumentException(
                    "Cannot install vnode "
                            + vnode
                            + " from "
                            + payload
                            + " (expected a local export)");
        }
        target.installMovedVnode(vnode, shipment.handle());
        // the installed vnode holds its own hard links now
        return () -> FileUtils.deleteDirectory(new File(shipment.directory()));
    }
}
