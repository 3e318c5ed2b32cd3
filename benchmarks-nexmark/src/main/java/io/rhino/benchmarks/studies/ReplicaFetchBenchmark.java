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

package io.rhino.benchmarks.studies;

import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.cli.BenchmarkMain;
import io.rhino.flink.replication.ReplicaListing;
import io.rhino.flink.replication.ReplicaRestore;
import io.rhino.replication.ReplicationConfig;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.store.ReplicaStore;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.util.FileUtils;

/**
 * How long a restarting subtask takes to restore vnodes whose replicas another TaskManager holds: a
 * holder's replication service on 127.0.0.2 serves them to a restorer's on 127.0.0.3 over the
 * replication protocol, and the restorer asks for one vnode after another as a subtask's restore
 * does, each followed by an emulated instance open. Fetched on demand (each vnode when asked for)
 * against prefetched N vnodes at a time ({@link ReplicaRestore#prefetch}).
 */
public final class ReplicaFetchBenchmark {

    private static final String PREFIX = "job/operator";
    private static final long CHECKPOINT = 7;
    private static final int CHUNK = 1 << 20;

    private ReplicaFetchBenchmark() {}

    public static void main(String[] argv) {
        BenchmarkMain.exit(
                "Replica fetch benchmark",
                () -> {
                    run(argv);
                    return true;
                });
    }

    public static void run(String[] argv) throws Exception {
        Args args =
                new Args("ReplicaFetchBenchmark")
                        .flag(
                                "dir",
                                System.getProperty("java.io.tmpdir"),
                                "base directory for both stores (a subdirectory, removed at the"
                                        + " end)")
                        .flag("vnodes", 4, "vnodes the subtask restores")
                        .flag("vnode-mb", 128, "bytes of each vnode, in MB")
                        .flag("file-mb", 32, "bytes of each of a vnode's files, in MB")
                        .flag(
                                "modes",
                                "on-demand,1,2,4",
                                "on-demand, or vnodes prefetched at a time; comma-separated")
                        .flag(
                                "open-ms",
                                100,
                                "emulated open of each vnode's instance after its restore, in ms")
                        .flag("runs", 3, "runs of each mode, alternating")
                        .flag("out", "benchmarks-nexmark/target/replica-fetch.csv", "CSV file");
        if (!args.parse(argv)) {
            return;
        }
        int vnodes = args.getInt("vnodes", 1);
        long vnodeBytes = (long) args.getInt("vnode-mb", 1) << 20;
        long fileBytes = (long) args.getInt("file-mb", 1) << 20;
        int openMillis = args.getInt("open-ms", 0);
        int runs = args.getInt("runs", 1);
        List<String> modes = List.of(args.get("modes").split(","));
        for (String mode : modes) {
            concurrency(mode);
        }
        Path base = Files.createTempDirectory(Paths.get(args.get("dir")), "rhino-fetch-bench");
        List<String> csv = new ArrayList<>();
        csv.add("mode,run,vnodes,vnode_mb,open_ms,seconds,fetched_mb_per_s");
        try (ReplicationService holder =
                        ReplicationService.start(
                                ReplicationConfig.anyPort(
                                        "127.0.0.2",
                                        base.resolve("holder"),
                                        "secret",
                                        Duration.ofMinutes(5)));
                ReplicationService restorer =
                        ReplicationService.start(
                                ReplicationConfig.anyPort(
                                        "127.0.0.3",
                                        base.resolve("restorer"),
                                        "secret",
                                        Duration.ofMinutes(5)))) {
            Map<Integer, List<KeyedStateHandle>> handles =
                    storeReplicas(holder.store(), base, vnodes, vnodeBytes, fileBytes);
            System.out.printf(
                    "%d vnodes of %d MB on the holder; each restore is followed by a %d ms open%n",
                    vnodes, vnodeBytes >> 20, openMillis);
            for (int run = 1; run <= runs; run++) {
                for (String mode : modes) {
                    double seconds =
                            restore(holder, restorer, base, handles, concurrency(mode), openMillis);
                    double mbPerSecond = vnodes * (vnodeBytes >> 20) / seconds;
                    System.out.printf(
                            "%-10s run %d: %.2f s, %.0f MB/s fetched%n",
                            mode, run, seconds, mbPerSecond);
                    csv.add(
                            String.format(
                                    "%s,%d,%d,%d,%d,%.3f,%.1f",
                                    mode,
                                    run,
                                    vnodes,
                                    vnodeBytes >> 20,
                                    openMillis,
                                    seconds,
                                    mbPerSecond));
                }
            }
        } finally {
            FileUtils.deleteDirectory(base.toFile());
        }
        BenchmarkMain.writeCsv(Paths.get(args.get("out")), csv);
    }

    /** 0 for on demand, else the vnodes prefetched at a time. */
    private static int concurrency(String mode) {
        if (mode.trim().equals("on-demand")) {
            return 0;
        }
        try {
            int vnodes = Integer.parseInt(mode.trim());
            if (vnodes >= 1) {
                return vnodes;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(
                "Flag --modes takes on-demand or a positive number of vnodes, got '" + mode + "'.");
    }

    /** Seconds for the restorer to restore every vnode, one after another, as a subtask does. */
    private static double restore(
            ReplicationService holder,
            ReplicationService restorer,
            Path base,
            Map<Integer, List<KeyedStateHandle>> handles,
            int concurrentVnodes,
            int openMillis)
            throws Exception {
        Path work = Files.createDirectories(base.resolve("work-" + UUID.randomUUID()));
        long start = System.nanoTime();
        try (ReplicaRestore restore =
                ReplicaRestore.from(restorer, List.of(holder.address().toString()), PREFIX, work)) {
            if (concurrentVnodes > 0) {
                restore.prefetch(handles, concurrentVnodes);
            }
            for (Map.Entry<Integer, List<KeyedStateHandle>> vnode : handles.entrySet()) {
                List<KeyedStateHandle> restored =
                        restore.handlesFor(vnode.getKey(), vnode.getValue());
                if (restored.equals(vnode.getValue())) {
                    throw new IllegalStateException(
                            "Vnode " + vnode.getKey() + " was not restored from the replica");
                }
                Thread.sleep(openMillis);
            }
            return (System.nanoTime() - start) / 1e9;
        } finally {
            FileUtils.deleteDirectory(work.toFile());
        }
    }

    /** Writes each vnode's replica (files, MANIFEST, CURRENT, listing) into the holder's store. */
    private static Map<Integer, List<KeyedStateHandle>> storeReplicas(
            ReplicaStore store, Path base, int vnodes, long vnodeBytes, long fileBytes)
            throws Exception {
        Random random = new Random(20261127);
        byte[] chunk = new byte[CHUNK];
        Map<Integer, List<KeyedStateHandle>> handles = new TreeMap<>();
        for (int vnode = 0; vnode < vnodes; vnode++) {
            String directory = ReplicaListing.vnodeDirectory(PREFIX, vnode);
            List<String> listed = new ArrayList<>();
            List<HandleAndLocalPath> shared = new ArrayList<>();
            long left = vnodeBytes;
            for (int file = 10; left > 0; file++) {
                String name = String.format("%06d.sst", file);
                long bytes = Math.min(left, fileBytes);
                random.nextBytes(chunk);
                put(store, directory + "/i-a/" + name, chunk, bytes);
                listed.add("i-a/" + name);
                shared.add(
                        HandleAndLocalPath.of(new ByteStreamStateHandle(name, new byte[0]), name));
                left -= bytes;
            }
            for (String small : List.of("MANIFEST-000005", "CURRENT")) {
                put(
                        store,
                        directory + "/chk-" + CHECKPOINT + "/" + small,
                        small.getBytes(),
                        small.length());
                listed.add("chk-" + CHECKPOINT + "/" + small);
            }
            Path listing = base.resolve("listing");
            ReplicaListing.of(CHECKPOINT - 1, listed).write(listing);
            byte[] listingBytes = Files.readAllBytes(listing);
            put(
                    store,
                    ReplicaListing.path(directory, CHECKPOINT),
                    listingBytes,
                    listingBytes.length);
            handles.put(
                    vnode,
                    List.of(
                            new IncrementalRemoteKeyedStateHandle(
                                    UUID.randomUUID(),
                                    KeyGroupRange.of(vnode, vnode),
                                    CHECKPOINT,
                                    shared,
                                    List.of(),
                                    new ByteStreamStateHandle("metadata", new byte[] {1}))));
        }
        return handles;
    }

    /** Stores {@code bytes} bytes, {@code pattern} repeated, as a finished replica file. */
    private static void put(ReplicaStore store, String path, byte[] pattern, long bytes)
            throws Exception {
        CRC32C crc = new CRC32C();
        ReplicaStore.Incoming incoming = store.create(path, 1);
        for (long written = 0; written < bytes; ) {
            int length = (int) Math.min(pattern.length, bytes - written);
            crc.update(pattern, 0, length);
            incoming.write(ByteBuffer.wrap(pattern, 0, length));
            written += length;
        }
        incoming.finish((int) crc.getValue());
        incoming.commit((int) crc.getValue());
    }
}
