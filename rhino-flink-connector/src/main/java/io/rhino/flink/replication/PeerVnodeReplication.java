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

import io.rhino.flink.state.LiveInstanceFiles;
import io.rhino.flink.state.VnodeReplication;
import io.rhino.replication.PeerAddress;
import io.rhino.replication.ReplicationService;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replicates a subtask's vnode checkpoints along its chain. In the checkpoint's synchronous phase
 * each vnode's live RocksDB files are captured as a RocksDB checkpoint (hard links, milliseconds);
 * in its asynchronous phase the SST files the chain does not hold yet, and the small metadata
 * files, go down the chain; last, a listing of the checkpoint's files, whose presence on a member
 * means that member holds a complete replica of the vnode as of that checkpoint.
 *
 * <p>Replica layout: {@code <job>/<operator>/vnode-<v>/sst/<file>.sst} (shared by checkpoints) and
 * {@code <job>/<operator>/vnode-<v>/chk-<id>/} (metadata files and the {@code _files} listing).
 */
public final class PeerVnodeReplication implements VnodeReplication {

    private static final Logger LOG = LoggerFactory.getLogger(PeerVnodeReplication.class);

    /** The listing that completes a vnode's replica of one checkpoint. */
    public static final String LISTING = "_files";

    private final ReplicationService service;
    private final List<PeerAddress> chain;
    private final String prefix;
    private final Path captureRoot;
    private final long timeoutMillis;

    /** The SST files the chain holds of one vnode instance. */
    private record Held(WeakReference<Object> instance, Set<String> sstFiles) {}

    // per vnode; written by the asynchronous phases, one at a time. A vnode that moved away and
    // back is a new RocksDB instance whose file names may repeat with other contents: a new
    // instance starts from nothing.
    private final Map<Integer, Held> replicatedSst = new HashMap<>();

    /**
     * @param prefix the job and operator part of replica paths, already safe ({@link #segment})
     * @param captureRoot a local directory on the same disk as the vnode instances (hard links)
     */
    public PeerVnodeReplication(
            ReplicationService service,
            List<PeerAddress> chain,
            String prefix,
            Path captureRoot,
            long timeoutMillis) {
        this.service = service;
        this.chain = List.copyOf(chain);
        this.prefix = prefix;
        this.captureRoot = captureRoot;
        this.timeoutMillis = timeoutMillis;
    }

    public List<PeerAddress> chain() {
        return chain;
    }

    /** A replica path segment from any name: unsafe characters become '_'. */
    public static String segment(String name) {
        String safe = name.replaceAll("[^A-Za-z0-9._-]", "_");
        return safe.isEmpty() || safe.startsWith(".") ? "_" + safe : safe;
    }

    @Override
    public Capture capture(
            long checkpointId, Map<Integer, CheckpointableKeyedStateBackend<?>> vnodes)
            throws Exception {
        Path directory = captureRoot.resolve("chk-" + checkpointId + "-" + System.nanoTime());
        Map<Integer, Path> captured = new LinkedHashMap<>();
        Map<Integer, Object> instances = new HashMap<>();
        try {
            for (Map.Entry<Integer, CheckpointableKeyedStateBackend<?>> vnode : vnodes.entrySet()) {
                Path vnodeDirectory = directory.resolve("vnode-" + vnode.getKey());
                LiveInstanceFiles.checkpoint(vnode.getValue(), vnodeDirectory);
                captured.put(vnode.getKey(), vnodeDirectory);
                instances.put(vnode.getKey(), vnode.getValue());
            }
        } catch (Exception e) {
            FileUtils.deleteDirectoryQuietly(directory.toFile());
            throw e;
        }
        return new Captured(checkpointId, directory, captured, instances);
    }

    private final class Captured implements Capture {
        private final long checkpointId;
        private final Path directory;
        private final Map<Integer, Path> byVnode;
        private final Map<Integer, Object> instances;

        Captured(
                long checkpointId,
                Path directory,
                Map<Integer, Path> byVnode,
                Map<Integer, Object> instances) {
            this.checkpointId = checkpointId;
            this.directory = directory;
            this.byVnode = byVnode;
            this.instances = instances;
        }

        @Override
        public void replicate() throws Exception {
            if (chain.isEmpty()) {
                return;
            }
            long started = System.nanoTime();
            long bytes = 0;
            int files = 0;
            synchronized (replicatedSst) {
                for (Map.Entry<Integer, Path> vnode : byVnode.entrySet()) {
                    String base = prefix + "/vnode-" + vnode.getKey();
                    String checkpoint = base + "/chk-" + checkpointId;
                    Object instance = instances.get(vnode.getKey());
                    Held previous = replicatedSst.get(vnode.getKey());
                    Set<String> held =
                            previous != null && previous.instance().get() == instance
                                    ? previous.sstFiles()
                                    : new TreeSet<>();
                    replicatedSst.put(
                            vnode.getKey(), new Held(new WeakReference<>(instance), held));
                    Map<String, Path> toSend = new LinkedHashMap<>();
                    List<String> listing = new ArrayList<>();
                    try (Stream<Path> captured = Files.list(vnode.getValue())) {
                        for (Path file : captured.sorted().toList()) {
                            String name = file.getFileName().toString();
                            if (name.endsWith(".sst")) {
                                listing.add("sst/" + name);
                                if (!held.contains(name)) {
                                    toSend.put(base + "/sst/" + name, file);
                                }
                            } else {
                                listing.add("chk-" + checkpointId + "/" + segment(name));
                                toSend.put(checkpoint + "/" + segment(name), file);
                            }
                        }
                    }
                    for (Path file : toSend.values()) {
                        bytes += Files.size(file);
                    }
                    files += toSend.size();
                    service.replicateAll(toSend, chain).get(timeoutMillis, TimeUnit.MILLISECONDS);
                    Path listingFile = vnode.getValue().resolve(LISTING + ".local");
                    Files.writeString(
                            listingFile, String.join("\n", listing), StandardCharsets.UTF_8);
                    service.replicate(listingFile, checkpoint + "/" + LISTING, chain)
                            .get(timeoutMillis, TimeUnit.MILLISECONDS);
                    held.clear();
                    listing.stream()
                            .filter(f -> f.startsWith("sst/"))
                            .forEach(f -> held.add(f.substring(4)));
                }
            }
            LOG.debug(
                    "Checkpoint {}: replicated {} files ({} bytes) of vnodes {} to {} in {} ms",
                    checkpointId,
                    files,
                    bytes,
                    byVnode.keySet(),
                    chain,
                    (System.nanoTime() - started) / 1_000_000);
        }

        @Override
        public void discard() {
            FileUtils.deleteDirectoryQuietly(directory.toFile());
        }
    }
}
