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

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.metadata.MetadataV3Serializer;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.junit.jupiter.api.Test;

/** What of its vnodes' snapshots a subtask hands Flink, and so what Flink's metadata holds. */
class SubtaskSnapshotHandleTest {

    private static final int INLINE_BYTES = 10_000;

    @Test
    void filesAreFlinksToOwnAndInlineBytesStayInTheManifestOnly() throws Exception {
        FileStateHandle sst =
                new FileStateHandle(new Path("file:/checkpoints/shared/a"), 4_000_000);
        FileStateHandle largeManifest =
                new FileStateHandle(new Path("file:/checkpoints/chk-7/b"), 30_000);
        Map<Integer, KeyedStateHandle> vnodes =
                Map.of(
                        3,
                        new IncrementalRemoteKeyedStateHandle(
                                UUID.randomUUID(),
                                KeyGroupRange.of(0, 9),
                                7,
                                List.of(HandleAndLocalPath.of(sst, "000010.sst")),
                                List.of(
                                        HandleAndLocalPath.of(inline("manifest"), "MANIFEST-5"),
                                        HandleAndLocalPath.of(inline("options"), "OPTIONS-15")),
                                inline("metadata")),
                        4,
                        new IncrementalRemoteKeyedStateHandle(
                                UUID.randomUUID(),
                                KeyGroupRange.of(10, 19),
                                7,
                                List.of(),
                                List.of(HandleAndLocalPath.of(largeManifest, "MANIFEST-6")),
                                inline("metadata-4")));
        ByteStreamStateHandle manifest = inline("rhino-manifest");

        IncrementalRemoteKeyedStateHandle subtask =
                SubtaskSnapshotHandle.of(
                        UUID.randomUUID(), KeyGroupRange.of(0, 19), 7, manifest, vnodes);

        assertThat(subtask.getSharedState())
                .extracting(HandleAndLocalPath::getLocalPath)
                .containsExactly("vnode-3/000010.sst");
        assertThat(subtask.getPrivateState())
                .as("private state Flink must delete: files only")
                .extracting(HandleAndLocalPath::getLocalPath)
                .containsExactly("vnode-4/MANIFEST-6");
        assertThat(subtask.getMetaDataStateHandle()).isSameAs(manifest);

        ByteArrayOutputStream metadata = new ByteArrayOutputStream();
        MetadataV3Serializer.INSTANCE.serializeKeyedStateHandleUtil(
                subtask, new DataOutputStream(metadata));
        assertThat(metadata.size())
                .as("bytes of the subtask's handle in Flink's checkpoint metadata")
                .isLessThan(INLINE_BYTES + 1_000);
    }

    /** Bytes below the small-file threshold, as Flink's checkpoint streams return them. */
    private static ByteStreamStateHandle inline(String name) {
        return new ByteStreamStateHandle(name, new byte[INLINE_BYTES]);
    }
}
