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

import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines;
import io.rhino.flink.testjobs.TestPipelines.Input;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.flink.testjobs.TestPipelines.RhinoSetup;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.StorageStatistics;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.AuditLogger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * With HDFS as checkpoint storage, handovers work and read nothing from it.
 *
 * <p>A real HDFS (Hadoop's {@link MiniDFSCluster}: a NameNode and a DataNode in this JVM) is the
 * checkpoint storage of a Rhino job, reached by Flink through its Hadoop file system ({@code
 * hdfs://} URIs). The job takes an incremental checkpoint every 300 ms with every state file in
 * HDFS (none inlined in the handles) while vnodes are handed over between subtasks. The test proves
 * that
 *
 * <ul>
 *   <li>the output equals plain Flink's on the same input (exactly once, no state lost or doubled
 *       by the handovers),
 *   <li>all handovers complete,
 *   <li>the checkpoints are in HDFS: completed {@code chk-*} directories with their {@code
 *       _metadata} and the incremental checkpoints' shared files, before and after the handovers,
 *   <li>the handovers read nothing from HDFS: no file is opened on the NameNode (its audit log's
 *       {@code open} events, which every read of a file starts with) and no byte is read by any
 *       HDFS client in this JVM (Hadoop's {@code hdfs} file system statistics, which count the
 *       bytes the Flink job's HDFS clients read) while they run. Checkpoints taken meanwhile write
 *       to HDFS and do not read; a restore would read, and there is none.
 * </ul>
 *
 * <p>The measure is first shown to see reads: reading one checkpoint's {@code _metadata} through
 * Flink's file system counts one opened file and its length in bytes.
 */
class HdfsCheckpointStorageITCase {

    /**
     * Keeps every completed checkpoint while the job runs, to list them; the JobManager takes this
     * from the cluster configuration, not the job's.
     */
    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            RhinoClusters.twoTaskManagers(
                    new Configuration().set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 1_000));

    /**
     * 30 s of input: a checkpoint to HDFS takes seconds on a loaded machine, and the handovers
     * start after one and must all be done before the input ends.
     */
    private static final Input INPUT = new Input(30_000, 97, 1_000, 2);

    private static final int HANDOVERS = 8;

    @TempDir static java.nio.file.Path hdfsBaseDir;

    private static MiniDFSCluster hdfs;
    private static String hdfsUri;

    @BeforeAll
    static void startHdfs() throws IOException {
        org.apache.hadoop.conf.Configuration conf = new HdfsConfiguration();
        conf.set(DFSConfigKeys.DFS_NAMENODE_AUDIT_LOGGERS_KEY, OpenAudit.class.getName());
        hdfs = new MiniDFSCluster.Builder(conf, hdfsBaseDir.toFile()).numDataNodes(1).build();
        hdfs.waitActive();
        hdfsUri = "hdfs://127.0.0.1:" + hdfs.getNameNodePort();
        // Flink's HDFS client (flink.hadoop.* goes to its Hadoop configuration) retries closing a
        // file until the DataNode has reported the block, first after 400 ms: with a few hundred
        // files per checkpoint that made checkpoints take many seconds
        FileSystem.initialize(
                Configuration.fromMap(
                        Map.of(
                                "flink.hadoop.dfs.client.block.write.locateFollowingBlock.initial.delay.ms",
                                "10")),
                null);
    }

    @AfterAll
    static void stopHdfs() {
        if (hdfs != null) {
            hdfs.shutdown();
        }
        FileSystem.initialize(new Configuration(), null);
    }

    @Test
    @Timeout(240)
    void handoversReadNothingFromHdfs(@InjectMiniCluster MiniCluster miniCluster) throws Exception {
        List<String> reference = RhinoEquivalenceITCase.run(Mode.PLAIN, INPUT.unlimited(), 8);
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, hdfsUri + "/checkpoints");
        config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        // every file in HDFS, none inlined in the handles: small SST files would be
        config.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.ZERO);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        String runId = "hdfs-storage-" + UUID.randomUUID();
        TestPipelines.build(
                        env,
                        Mode.RHINO,
                        INPUT,
                        new RhinoSetup(
                                8, 2, new LocalDirectoryStateTransfer(), Duration.ofSeconds(30)),
                        events -> events)
                .sinkTo(new ResultSink(runId));
        JobClient job = env.executeAsync(runId);
        JobID jobId = job.getJobID();
        Path jobDir = new Path("/checkpoints/" + jobId);
        RandomHandovers driver = new RandomHandovers(jobId, TestPipelines.RHINO_OPERATORS, 7);
        driver.awaitRunning(Duration.ofSeconds(60));
        long checkpointed = RhinoClusters.completedCheckpoints(miniCluster, jobId);
        while (RhinoClusters.completedCheckpoints(miniCluster, jobId) < checkpointed + 1) {
            Thread.sleep(50); // exports then share files with completed checkpoints
        }

        List<Path> completedBefore = completedCheckpointDirs(jobDir);
        assertThat(completedBefore)
                .as("completed checkpoints of job %s in HDFS before the handovers", jobId)
                .isNotEmpty();
        assertThat(countFiles(new Path(jobDir, "shared")))
                .as("shared files of the incremental checkpoints in HDFS")
                .isPositive();

        // the measure sees a read: one checkpoint's metadata read through Flink's file system is
        // one file opened and its length in bytes (and nothing else read meanwhile)
        Path metadata = new Path(completedBefore.get(0), "_metadata");
        long metadataLength = hdfs.getFileSystem().getFileStatus(metadata).getLen();
        Reads beforeProbe = Reads.now();
        org.apache.flink.core.fs.Path probe =
                new org.apache.flink.core.fs.Path(hdfsUri + metadata.toUri().getPath());
        try (FSDataInputStream in = FileSystem.get(probe.toUri()).open(probe)) {
            assertThat(in.readAllBytes()).hasSize((int) metadataLength);
        }
        Reads probed = Reads.now().since(beforeProbe);
        assertThat(probed.openedPaths())
                .as("files opened on the NameNode by reading %s", metadata)
                .containsExactly(metadata.toUri().getPath());
        assertThat(probed.bytes())
                .as("bytes read from HDFS by reading %s", metadata)
                .isEqualTo(metadataLength);

        long checkpointsBeforeHandovers = RhinoClusters.completedCheckpoints(miniCluster, jobId);
        Reads beforeHandovers = Reads.now();
        long started = System.nanoTime();
        int completed = driver.run(HANDOVERS, () -> false);
        Duration handoverTime = Duration.ofNanos(System.nanoTime() - started);
        Reads duringHandovers = Reads.now().since(beforeHandovers);
        long checkpointsDuringHandovers =
                RhinoClusters.completedCheckpoints(miniCluster, jobId) - checkpointsBeforeHandovers;
        boolean runningAfterHandovers = job.getJobStatus().get() == JobStatus.RUNNING;
        List<Path> completedAfter = runningAfterHandovers ? completedCheckpointDirs(jobDir) : null;
        System.out.printf(
                "HDFS reads: probe %d file(s) %d bytes; %d handovers in %d ms: %d file(s) %d"
                        + " bytes, %d checkpoints completed meanwhile; completed checkpoints in"
                        + " HDFS before %d, after %s%n",
                probed.openedPaths().size(),
                probed.bytes(),
                completed,
                handoverTime.toMillis(),
                duringHandovers.openedPaths().size(),
                duringHandovers.bytes(),
                checkpointsDuringHandovers,
                completedBefore.size(),
                completedAfter == null ? "(job finished)" : completedAfter.size());
        job.getJobExecutionResult().get();

        assertThat(completed).as("handovers completed").isEqualTo(HANDOVERS);
        assertThat(duringHandovers.openedPaths())
                .as("files opened on HDFS during %s handovers: %s", completed, driver.history())
                .isEmpty();
        assertThat(duringHandovers.bytes())
                .as("bytes read from HDFS during %s handovers", completed)
                .isZero();
        if (completedAfter != null) { // the job deletes its checkpoints when it finishes
            assertThat(completedAfter)
                    .as("completed checkpoints in HDFS after the handovers")
                    .containsAll(completedBefore);
        }
        CheckpointStatsSnapshot stats =
                miniCluster.getExecutionGraph(jobId).get().getCheckpointStatsSnapshot();
        assertThat(stats.getHistory().getLatestCompletedCheckpoint().getExternalPath())
                .as("where the latest checkpoint went")
                .startsWith(hdfsUri + "/checkpoints/" + jobId + "/chk-");
        Multisets.assertSameMultiset("output", reference, ResultSink.take(runId));
    }

    /** The job's {@code chk-*} directories in HDFS that hold a completed checkpoint's metadata. */
    private static List<Path> completedCheckpointDirs(Path jobDir) throws IOException {
        DistributedFileSystem fs = hdfs.getFileSystem();
        List<Path> completed = new ArrayList<>();
        for (FileStatus dir : fs.listStatus(jobDir)) {
            if (dir.isDirectory()
                    && dir.getPath().getName().startsWith("chk-")
                    && fs.exists(new Path(dir.getPath(), "_metadata"))) {
                completed.add(Path.getPathWithoutSchemeAndAuthority(dir.getPath()));
            }
        }
        return completed;
    }

    private static long countFiles(Path dir) throws IOException {
        long files = 0;
        RemoteIterator<LocatedFileStatus> it = hdfs.getFileSystem().listFiles(dir, true);
        while (it.hasNext()) {
            it.next();
            files++;
        }
        return files;
    }

    /**
     * What was read from HDFS: the files the NameNode opened for reading and the bytes HDFS clients
     * of this JVM read.
     */
    private record Reads(List<String> openedPaths, long bytes) {

        static Reads now() {
            return new Reads(OpenAudit.opened(), bytesRead());
        }

        Reads since(Reads before) {
            return new Reads(
                    openedPaths.subList(before.openedPaths.size(), openedPaths.size()),
                    bytes - before.bytes);
        }

        private static long bytesRead() {
            StorageStatistics statistics =
                    org.apache.hadoop.fs.FileSystem.getGlobalStorageStatistics().get("hdfs");
            Long read = statistics == null ? null : statistics.getLong("bytesRead");
            return read == null ? 0 : read;
        }
    }

    /**
     * A NameNode audit logger recording every file opened for reading (the {@code open} command,
     * with which every HDFS client starts reading a file).
     */
    public static final class OpenAudit implements AuditLogger {

        private static final List<String> OPENED = Collections.synchronizedList(new ArrayList<>());

        static List<String> opened() {
            synchronized (OPENED) {
                return List.copyOf(OPENED);
            }
        }

        @Override
        public void initialize(org.apache.hadoop.conf.Configuration conf) {}

        @Override
        public void logAuditEvent(
                boolean succeeded,
                String userName,
                InetAddress address,
                String command,
                String source,
                String destination,
                FileStatus status) {
            if ("open".equals(command)) {
                OPENED.add(source);
            }
        }
    }
}
