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

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rhino.flink.cluster.BedHdfs;
import io.rhino.flink.cluster.LinkShape;
import io.rhino.flink.cluster.NetworkBed;
import io.rhino.flink.cluster.ProcessCluster;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;

/**
 * A process cluster on a {@link NetworkBed}: the JobManager, three TaskManagers and HDFS (the
 * checkpoint storage) each on a host of its own, every link shaped as {@link
 * LinkShape#fromSystemProperties()}. Tests that need it are skipped, saying why, where network
 * namespaces are not available. {@code -Drhino.netbed.keep-logs=<dir>} keeps the processes'
 * directories and logs there.
 */
public final class BedCluster implements AutoCloseable {

    public static final int TASK_MANAGERS = 3;
    public static final String JOB_MANAGER = "jm";
    public static final String STORAGE = "hdfs";
    public static final int REPLICATION_PORT = 50100;

    /**
     * Rhino's REST port on the JobManager's host. A port found free on the test's machine may be
     * taken there (by an outgoing connection's local port): Rhino's default, below the ephemeral
     * range, is not.
     */
    public static final int RHINO_REST_PORT = 8082;

    final NetworkBed bed;
    final BedHdfs hdfs;
    final ProcessCluster cluster;

    private BedCluster(NetworkBed bed, BedHdfs hdfs, ProcessCluster cluster) {
        this.bed = bed;
        this.hdfs = hdfs;
        this.cluster = cluster;
    }

    /** Skips the test, with the reason, where no bed can be made. */
    public static void assumeAvailable() {
        Optional<String> why = NetworkBed.unavailable();
        assumeTrue(why.isEmpty(), () -> "No network bed here: " + why.orElseThrow());
    }

    /** The bed's name of TaskManager {@code index}'s host. */
    public static String taskManager(int index) {
        return "tm" + index;
    }

    static List<String> hostNames() {
        List<String> names = new ArrayList<>(List.of(JOB_MANAGER));
        for (int index = 0; index < TASK_MANAGERS; index++) {
            names.add(taskManager(index));
        }
        names.add(STORAGE);
        return names;
    }

    /** Brings the bed, HDFS and the cluster up (and down again if any of them fails). */
    public static BedCluster start(
            Path directory, Configuration common, BiConsumer<Integer, Configuration> perTaskManager)
            throws Exception {
        assumeAvailable();
        String kept = System.getProperty("rhino.netbed.keep-logs", "");
        if (!kept.isBlank()) {
            // the processes' logs and directories outlive the test's temporary directory
            directory =
                    java.nio.file.Files.createDirectories(
                            Path.of(kept).resolve("bed-" + System.currentTimeMillis()));
        }
        NetworkBed bed = NetworkBed.up(hostNames(), LinkShape.fromSystemProperties());
        BedHdfs hdfs = null;
        try {
            hdfs = BedHdfs.start(bed.host(STORAGE), directory.resolve("hdfs"));
            Configuration config = new Configuration(common);
            // Flink's HDFS client retries closing a file until the DataNode reported the block,
            // first after 400 ms: with a few hundred files per checkpoint that took seconds
            config.setString(
                    "flink.hadoop.dfs.client.block.write.locateFollowingBlock.initial.delay.ms",
                    "10");
            // each host has its own ports: the replication service keeps its address across
            // restarts, as on machines of their own
            config.set(RhinoOptions.REPLICATION_PORT, String.valueOf(REPLICATION_PORT));
            List<String> taskManagers = hostNames().subList(1, 1 + TASK_MANAGERS);
            ProcessCluster cluster =
                    ProcessCluster.start(
                            directory.resolve("cluster"),
                            bed.clusterHosts(JOB_MANAGER, taskManagers),
                            TASK_MANAGERS,
                            config,
                            perTaskManager);
            return new BedCluster(bed, hdfs, cluster);
        } catch (Exception | Error e) {
            if (hdfs != null) {
                hdfs.close();
            }
            bed.close();
            throw e;
        }
    }

    /**
     * A Rhino job's configuration on this bed: checkpoints every {@code interval} to {@code
     * hdfs://<storage>/<name>}, Rhino's REST server on the JobManager's address and {@link
     * #RHINO_REST_PORT}, replication off (see {@link #withReplication}).
     */
    Configuration jobConfig(String name, Duration interval) {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval);
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, hdfs.uri() + "/" + name);
        config.set(RhinoOptions.REST_PORT, RHINO_REST_PORT);
        // the test reaches the REST server from the bridge, not the JobManager host's loopback
        config.set(RhinoOptions.REST_BIND_ADDRESS, cluster.jobManagerAddress());
        return config;
    }

    /** Peer replication with {@code factor} copies, replicas kept {@code retention} after a job. */
    public static Configuration withReplication(
            Configuration config, int factor, Duration retention) {
        config.set(RhinoOptions.REPLICATION_MODE, "peers");
        config.set(RhinoOptions.REPLICATION_FACTOR, factor);
        config.set(RhinoOptions.REPLICATION_RETAIN_AFTER_TASKS, retention);
        return config;
    }

    /** The bed: its hosts, links and their byte counters. */
    public NetworkBed bed() {
        return bed;
    }

    /** The checkpoint storage: HDFS on its own host. */
    public BedHdfs hdfs() {
        return hdfs;
    }

    /** The Flink cluster: the JobManager and the TaskManagers, each on its host. */
    public ProcessCluster cluster() {
        return cluster;
    }

    /** The index of TaskManager's host {@code name} (tm0, tm1, ...). */
    static int indexOf(String hostName) {
        return Integer.parseInt(hostName.substring(2));
    }

    @Override
    public void close() throws Exception {
        try {
            cluster.close();
        } finally {
            try {
                hdfs.close();
            } finally {
                bed.close();
            }
        }
    }
}
