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

import io.rhino.flink.replication.ReplicaListing;
import io.rhino.flink.replication.VnodeReplicaCollector;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.store.CommitListener;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointStateOutputStream;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStreamFactory;
import org.apache.flink.util.concurrent.FutureUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint's replication travels while its vnodes upload to the checkpoint storage, not before
 * they start: a chain member that stores nothing until the first vnode upload began still gets
 * every vnode's replica, and the checkpoint completes. Run one after the other, the replication
 * would wait for an upload that only starts once it ended, and the member would refuse the files.
 */
class ReplicationAlongsideUploadsTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 4, 1, 1);
    private static final String PREFIX = "job/op";
    private static final ValueStateDescriptor<String> VALUE =
            new ValueStateDescriptor<>("value", Types.STRING);

    @TempDir Path tmp;
    private VnodeBackendHarness harness;
    private ReplicationService primary;
    private ReplicationService holder;

    @AfterEach
    void tearDown() throws Exception {
        harness.close();
        primary.close();
        holder.close();
    }

    @Test
    void theChainReceivesTheCheckpointWhileItsVnodesUpload() throws Exception {
        harness = new VnodeBackendHarness(SPEC, tmp.resolve("checkpoints"));
        primary = ReplicationFixtures.service("127.0.0.2", tmp.resolve("primary"), "alongside");
        holder = ReplicationFixtures.service("127.0.0.3", tmp.resolve("holder"), "alongside");
        CountDownLatch uploading = new CountDownLatch(1);
        holder.store().listen(new StoresOnceUploading(holder, uploading));
        VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
        put(backend);
        backend.replicateWith(
                ReplicationFixtures.chain(
                        primary, holder, PREFIX, tmp.resolve("capture"), new AtomicLong()));

        SnapshotResult<KeyedStateHandle> result =
                FutureUtils.runIfNotDoneAndGet(
                        backend.snapshot(
                                1,
                                System.currentTimeMillis(),
                                new SignalsUploads(storage(), uploading),
                                CheckpointOptions.forCheckpointWithDefaultLocation()));

        assertThat(result.getJobManagerOwnedSnapshot()).isNotNull();
        for (int vnode : backend.ownedVnodes()) {
            assertThat(
                            holder.store()
                                    .file(
                                            ReplicaListing.path(
                                                    ReplicaListing.vnodeDirectory(PREFIX, vnode),
                                                    1)))
                    .as("vnode %d's listing of checkpoint 1 on the holder", vnode)
                    .isPresent();
        }
    }

    private CheckpointStreamFactory storage() throws IOException {
        return new FsCheckpointStreamFactory(
                FileSystem.getLocalFileSystem(),
                new org.apache.flink.core.fs.Path(
                        Files.createDirectories(tmp.resolve("chk-1")).toUri()),
                new org.apache.flink.core.fs.Path(
                        Files.createDirectories(tmp.resolve("shared")).toUri()),
                1024,
                4096);
    }

    private static void put(VnodeKeyedStateBackend<Long> backend) throws Exception {
        ValueState<String> state =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        for (long key = 0; key < 5_000; key++) {
            backend.setCurrentKey(key);
            state.update("value-" + key);
        }
    }

    /** A holder's store that commits a file only once a vnode's upload began. */
    private static final class StoresOnceUploading implements CommitListener {
        private final VnodeReplicaCollector collector;
        private final CountDownLatch uploading;

        StoresOnceUploading(ReplicationService holder, CountDownLatch uploading) {
            this.collector = new VnodeReplicaCollector(holder.store());
            this.uploading = uploading;
        }

        @Override
        public void beforeCommit(String relativePath, Path file) throws IOException {
            try {
                if (!uploading.await(20, TimeUnit.SECONDS)) {
                    throw new IOException("No vnode uploaded while " + relativePath + " arrived");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            collector.beforeCommit(relativePath, file);
        }

        @Override
        public void committed(String relativePath) {
            collector.committed(relativePath);
        }
    }

    /** The checkpoint storage, telling when the first stream to it opens. */
    private static final class SignalsUploads implements CheckpointStreamFactory {
        private final CheckpointStreamFactory storage;
        private final CountDownLatch uploading;

        SignalsUploads(CheckpointStreamFactory storage, CountDownLatch uploading) {
            this.storage = storage;
            this.uploading = uploading;
        }

        @Override
        public CheckpointStateOutputStream createCheckpointStateOutputStream(
                CheckpointedStateScope scope) throws IOException {
            uploading.countDown();
            return storage.createCheckpointStateOutputStream(scope);
        }

        @Override
        public boolean canFastDuplicate(StreamStateHandle handle, CheckpointedStateScope scope)
                throws IOException {
            return storage.canFastDuplicate(handle, scope);
        }

        @Override
        public List<StreamStateHandle> duplicate(
                List<StreamStateHandle> handles, CheckpointedStateScope scope) throws IOException {
            return storage.duplicate(handles, scope);
        }

        @Override
        public void reusePreviousStateHandle(Collection<? extends StreamStateHandle> handles) {
            storage.reusePreviousStateHandle(handles);
        }

        @Override
        public boolean couldReuseStateHandle(StreamStateHandle handle) {
            return storage.couldReuseStateHandle(handle);
        }
    }
}
