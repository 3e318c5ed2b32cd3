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

package io.rhino.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.replication.PeerVnodeReplication;
import io.rhino.flink.replication.ReplicaListing;
import io.rhino.flink.replication.TaskManagerReplication;
import io.rhino.flink.state.PathSegment;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ReleasableRate;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import io.rhino.replication.ReplicationConfig;
import io.rhino.replication.ReplicationService;
import io.rhino.replication.store.ReplicaStore;
import io.rhino.replication.testing.ChangingFileTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

/**
 * With {@code rhino.replication.mode: peers}, every completed checkpoint of every vnode is held,
 * verified, by another TaskManager's replication service (three TaskManagers, each its own service,
 * port and replica directory), across handovers; a replica opens as the RocksDB instance it copies;
 * and the output equals plain Flink's.
 */
@Timeout(240)
class ReplicationITCase {

    private static final String NAME = "replicated";
    private static final long EVENTS = 120_000;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = RhinoClusters.threeTaskManagers();

    @TempDir Path checkpoints;
    @TempDir Path replicas;
    @TempDir Path stranger;

    @Test
    void everyCheckpointOfEveryVnodeIsHeldVerifiedOnAnotherTaskManager(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        String runId = "replication-" + UUID.randomUUID();
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(
                config, checkpoints, RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
        // no secret: each Rhino operator gets a random one, and its peers work only in its scope
        RhinoClusters.withPeerReplication(config, replicas, null);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        SkewedCountsJob.rhino(
                env, runId, EVENTS, RhinoKeyedStreamOptions.builder(NAME).vnodes(8).build());
        JobClient job = env.executeAsync("replication");
        HandoverManager manager =
                RhinoHandovers.awaitReady(job.getJobID(), NAME, Duration.ofSeconds(60));

        Random random = new Random(20261124);
        for (int round = 0; round < 5; round++) {
            Thread.sleep(500);
            RhinoClusters.checkpoint(miniCluster, job.getJobID());
            RoutingTable table = manager.routingTable();
            int vnode = random.nextInt(8);
            int owner = table.ownerOf(vnode);
            int target =
                    (owner + 1 + random.nextInt(SkewedCountsJob.PARALLELISM - 1))
                            % SkewedCountsJob.PARALLELISM;
            assertThat(
                            manager.handover(List.of(new VnodeMove(vnode, owner, target)))
                                    .get(60, TimeUnit.SECONDS)
                                    .isCompleted())
                    .isTrue();
        }
        // the first checkpoint after the last handover completes; the next ones carry that news
        // (the departure notices of the vnodes that moved)
        long last = -1;
        for (int i = 0; i < 3; i++) {
            Thread.sleep(500);
            last = RhinoClusters.checkpoint(miniCluster, job.getJobID());
        }

        Map<Integer, String> taskManagerBySubtask =
                RhinoHandovers.operators(job.getJobID()).get(NAME);
        RoutingTable table = manager.routingTable();
        String prefix = PeerVnodeReplication.operatorPrefix(job.getJobID().toString(), NAME);
        for (int vnode = 0; vnode < 8; vnode++) {
            String ownerTaskManager = taskManagerBySubtask.get(table.ownerOf(vnode));
            String vnodeDirectory = ReplicaListing.vnodeDirectory(prefix, vnode);
            String listing = ReplicaListing.path(vnodeDirectory, last);
            List<Path> holders = holdersOf(listing);
            assertThat(holders)
                    .as("TaskManagers holding vnode %d as of checkpoint %d", vnode, last)
                    .hasSize(1);
            Path holder = holders.get(0);
            assertThat(holder.getFileName().toString())
                    .as("the copy is on another TaskManager than the owner's")
                    .isNotEqualTo(PathSegment.of(ownerTaskManager));
            ReplicaStore store = new ReplicaStore(holder);
            for (String file : ReplicaListing.read(holder.resolve(listing)).files()) {
                String path = vnodeDirectory + "/" + file;
                assertThat(store.verify(path)).as(path).isTrue();
            }
            assertCollected(holder, vnodeDirectory);
            assertThat(storesWithFilesOf(vnodeDirectory))
                    .as("stores with files of vnode %d: only its owner's chain", vnode)
                    .containsExactly(holder);
            assertThat(keysInReplica(holder, prefix + "/vnode-" + vnode, last))
                    .as("entries in the replica of vnode %d, opened as a RocksDB instance", vnode)
                    .isPositive();
        }

        assertStrangersAreRefused(taskManagerBySubtask.values(), prefix);

        ReleasableRate.release(runId);
        job.getJobExecutionResult().get();
        Multisets.assertSameMultiset(
                "output with replication vs plain Flink",
                SkewedCountsJob.plainFlink(runId, EVENTS),
                ResultSink.take(runId));
        try (Stream<Path> stores = Files.list(replicas)) {
            for (Path store : stores.toList()) {
                assertThat(store.resolve(PathSegment.of(job.getJobID().toString())))
                        .as("replicas of the finished job")
                        .doesNotExist();
            }
        }
    }

    /**
     * Without a configured secret, a peer that does not know the operator's random secret gets
     * nothing into any TaskManager's store: not without a scope, not with a guessed secret.
     */
    private void assertStrangersAreRefused(Collection<String> taskManagers, String prefix)
            throws Exception {
        Path evil = Files.write(stranger.resolve("evil.sst"), new byte[1000]);
        String target = prefix + "/vnode-0/evil.sst";
        try (ReplicationService peer =
                ReplicationService.start(
                        ReplicationConfig.anyPort(
                                "127.0.0.1",
                                stranger.resolve("store"),
                                null,
                                Duration.ofSeconds(20)))) {
            for (String taskManager : new HashSet<>(taskManagers)) {
                ReplicationService service =
                        TaskManagerReplication.serviceOf(taskManager).orElseThrow();
                assertThat(peer.replicate(evil, target, List.of(service.address())))
                        .failsWithin(Duration.ofSeconds(20))
                        .withThrowableOfType(Exception.class)
                        .withMessageContaining("named no scope");
                peer.registerScope(prefix, "a guessed secret");
                assertThat(peer.replicate(evil, target, List.of(service.address())))
                        .failsWithin(Duration.ofSeconds(20))
                        .withThrowableOfType(Exception.class)
                        .withMessageContaining("does not know that job operator's secret");
                peer.forgetScope(prefix);
                assertThat(service.store().file(target)).as("on %s", taskManager).isEmpty();
            }
        }
    }

    /**
     * A holder keeps a vnode's listings from the last completed checkpoint on (three at most: the
     * notice of the last completion may reach a subtask one checkpoint late) and no file that none
     * of them names. A dropped checkpoint's directory stays only for the metadata files a kept
     * listing names there (RocksDB's OPTIONS and CURRENT, sent once per instance).
     */
    private static void assertCollected(Path holder, String vnodeDirectory) throws Exception {
        Path directory = holder.resolve(vnodeDirectory);
        List<Path> checkpointDirectories;
        try (Stream<Path> children = Files.list(directory)) {
            checkpointDirectories =
                    children.filter(p -> p.getFileName().toString().startsWith("chk-")).toList();
        }
        List<Path> listed =
                checkpointDirectories.stream()
                        .filter(c -> Files.isRegularFile(c.resolve(ReplicaListing.NAME)))
                        .toList();
        assertThat(listed)
                .as("checkpoints of %s kept on %s", vnodeDirectory, holder.getFileName())
                .hasSizeBetween(1, 3);
        Set<String> named = new HashSet<>();
        for (Path checkpoint : listed) {
            named.addAll(ReplicaListing.read(checkpoint.resolve(ReplicaListing.NAME)).files());
        }
        Set<Path> unlisted = new HashSet<>(checkpointDirectories);
        unlisted.removeAll(listed);
        List<String> unnamed =
                ChangingFileTree.regularFiles(directory).stream()
                        .filter(
                                f ->
                                        f.toString().endsWith(".sst")
                                                || (unlisted.contains(f.getParent())
                                                        && !f.toString().endsWith(".crc32c")))
                        .map(f -> directory.relativize(f).toString())
                        .filter(f -> !named.contains(f))
                        .toList();
        assertThat(unnamed)
                .as(
                        "SST files of %s, and files of its dropped checkpoints, no kept listing"
                                + " names",
                        vnodeDirectory)
                .isEmpty();
    }

    /** The stores holding any SST file of the vnode. */
    private List<Path> storesWithFilesOf(String vnodeDirectory) throws Exception {
        List<Path> holding = new ArrayList<>();
        try (Stream<Path> stores = Files.list(replicas)) {
            for (Path store : stores.toList()) {
                Path directory = store.resolve(vnodeDirectory);
                if (ChangingFileTree.regularFiles(directory).stream()
                        .anyMatch(f -> f.toString().endsWith(".sst"))) {
                    holding.add(store);
                }
            }
        }
        return holding;
    }

    private List<Path> holdersOf(String listing) throws Exception {
        List<Path> holders = new ArrayList<>();
        try (Stream<Path> stores = Files.list(replicas)) {
            for (Path store : stores.toList()) {
                if (Files.isRegularFile(store.resolve(listing))) {
                    holders.add(store);
                }
            }
        }
        return holders;
    }

    /** Assembles the replica of one checkpoint as a RocksDB directory and counts its entries. */
    private long keysInReplica(Path store, String vnodePath, long checkpoint) throws Exception {
        Path assembled = Files.createTempDirectory(checkpoints, "assembled");
        for (String file :
                ReplicaListing.read(store.resolve(ReplicaListing.path(vnodePath, checkpoint)))
                        .files()) {
            Path source = store.resolve(vnodePath + "/" + file);
            Files.createLink(assembled.resolve(source.getFileName().toString()), source);
        }
        RocksDB.loadLibrary();
        List<byte[]> families;
        try (Options options = new Options()) {
            families = RocksDB.listColumnFamilies(options, assembled.toString());
        }
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        families.forEach(name -> descriptors.add(new ColumnFamilyDescriptor(name)));
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        long entries = 0;
        try (DBOptions options = new DBOptions();
                RocksDB db =
                        RocksDB.openReadOnly(options, assembled.toString(), descriptors, handles)) {
            for (ColumnFamilyHandle handle : handles) {
                try (RocksIterator it = db.newIterator(handle)) {
                    for (it.seekToFirst(); it.isValid(); it.next()) {
                        entries++;
                    }
                }
                handle.close();
            }
        }
        return entries;
    }
}
