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

package io.rhino.flink.state;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;

/**
 * Reads a completed checkpoint and tells, for every Rhino operator in it, which subtask held which
 * vnode and how many bytes the vnode's state had. For operators and tools (the demo job prints it);
 * it opens files only, never a running job.
 */
public final class VnodeCheckpointInspector {

    /** One vnode in a checkpoint. */
    public record VnodeState(String operatorId, int subtask, int vnode, long stateBytes) {}

    private VnodeCheckpointInspector() {}

    /**
     * The vnodes of every Rhino operator in the checkpoint whose {@code _metadata} file is given,
     * by operator id, then vnode.
     */
    public static SortedMap<String, SortedMap<Integer, VnodeState>> read(Path metadataFile)
            throws IOException {
        CheckpointMetadata metadata;
        try (InputStream in = Files.newInputStream(metadataFile)) {
            metadata =
                    Checkpoints.loadCheckpointMetadata(
                            new DataInputStream(in),
                            VnodeCheckpointInspector.class.getClassLoader(),
                            metadataFile.getParent().toString());
        }
        SortedMap<String, SortedMap<Integer, VnodeState>> byOperator = new TreeMap<>();
        for (OperatorState operator : metadata.getOperatorStates()) {
            for (Map.Entry<Integer, OperatorSubtaskState> subtask :
                    operator.getSubtaskStates().entrySet()) {
                for (KeyedStateHandle handle : subtask.getValue().getManagedKeyedState()) {
                    VnodeManifest manifest = manifestOf(handle);
                    if (manifest == null) {
                        continue; // keyed state of a plain Flink operator
                    }
                    String operatorId = operator.getOperatorID().toHexString();
                    manifest.handleByVnode()
                            .forEach(
                                    (vnode, vnodeHandle) ->
                                            byOperator
                                                    .computeIfAbsent(
                                                            operatorId, id -> new TreeMap<>())
                                                    .put(
                                                            vnode,
                                                            new VnodeState(
                                                                    operatorId,
                                                                    subtask.getKey(),
                                                                    vnode,
                                                                    vnodeHandle.getStateSize())));
                }
            }
        }
        return byOperator;
    }

    private static VnodeManifest manifestOf(KeyedStateHandle handle) throws IOException {
        StreamStateHandle manifest = SubtaskSnapshotHandle.manifestOf(handle);
        if (manifest == null) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(manifest.openInputStream())) {
            if (in.readInt() != VnodeManifest.MAGIC) {
                return null;
            }
        }
        return VnodeManifest.readFrom(manifest);
    }
}
