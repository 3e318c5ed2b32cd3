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

import io.rhino.flink.state.FileLinks;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.flink.util.FileUtils;

/**
 * The snapshot of each vnode's RocksDB instance whose files a chain received whole in its last
 * round, with that snapshot's small metadata files (RocksDB's {@code CURRENT}, {@code MANIFEST},
 * {@code OPTIONS}) kept beside the subtask: a checkpoint that reuses the snapshot of an idle vnode
 * lists the chain's replica of it again under its own id, sending only those files, instead of
 * capturing the vnode. The SST files stay where the chain holds them; the metadata files go again
 * because a holder drops a checkpoint's directory, and the metadata in it, once a later checkpoint
 * completed.
 */
final class ListedSnapshots {

    /**
     * @param snapshotOf the checkpoint whose snapshot of the instance the chain holds
     * @param metadata a directory of links to that snapshot's files other than SST files
     */
    record Listed(WeakReference<Object> instance, long snapshotOf, Path metadata) {}

    private final Path root;
    // replaced by the asynchronous phases, one round at a time; read in the task thread
    private final Map<Integer, Listed> byVnode = new ConcurrentHashMap<>();

    /**
     * @param root a directory of its own, on the disk of the captured files (hard links)
     */
    ListedSnapshots(Path root) {
        this.root = root;
    }

    /**
     * Whether the chain's last whole round of the vnode's {@code instance} sent its snapshot of
     * {@code snapshotOf}.
     */
    boolean holds(int vnode, Object instance, long snapshotOf) {
        return of(vnode, instance).map(l -> l.snapshotOf() == snapshotOf).orElse(false);
    }

    Optional<Listed> of(int vnode, Object instance) {
        Listed listed = byVnode.get(vnode);
        return listed != null && listed.instance().get() == instance
                ? Optional.of(listed)
                : Optional.empty();
    }

    /**
     * A round sent the chain every file of the instance's snapshot of {@code checkpointId},
     * captured in {@code captured}: keeps links to its metadata files.
     */
    void replicated(int vnode, Object instance, long checkpointId, Path captured)
            throws IOException {
        Path metadata = root.resolve("vnode-" + vnode + "-chk-" + checkpointId);
        FileUtils.deleteDirectoryQuietly(metadata.toFile());
        Files.createDirectories(metadata);
        try (Stream<Path> files = Files.list(captured)) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                // the round's own listing is written there too
                if (!name.endsWith(".sst") && !name.equals(VnodeChainRound.LISTING_SCRATCH)) {
                    FileLinks.linkOrCopy(file, metadata.resolve(name));
                }
            }
        }
        replace(vnode, new Listed(new WeakReference<>(instance), checkpointId, metadata));
    }

    /** The chain may no longer hold the vnode's last snapshot whole: the next round sends it. */
    void forget(int vnode) {
        replace(vnode, null);
    }

    /** Forgets every vnode but {@code vnodes} (those that left the subtask). */
    void retainOnly(Set<Integer> vnodes) {
        for (Integer vnode : Set.copyOf(byVnode.keySet())) {
            if (!vnodes.contains(vnode)) {
                forget(vnode);
            }
        }
    }

    /** The metadata files of a listed snapshot. */
    static List<Path> metadataFiles(Listed listed) throws IOException {
        try (Stream<Path> files = Files.list(listed.metadata())) {
            return files.sorted().toList();
        }
    }

    private void replace(int vnode, Listed next) {
        Listed previous = next == null ? byVnode.remove(vnode) : byVnode.put(vnode, next);
        if (previous != null && (next == null || !previous.metadata().equals(next.metadata()))) {
            FileUtils.deleteDirectoryQuietly(previous.metadata().toFile());
        }
    }
}
