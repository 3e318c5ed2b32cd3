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

import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.replication.PeerVnodeReplication;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ReleasableRate;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * RhinoDFS ({@code rhino.replication.mode: dfs}) against a real HDFS ({@link MiniDFSCluster}):
 * checkpoints and savepoints in HDFS, vnodes moved between TaskManagers through HDFS (the bytes
 * uploaded are counted, and each handover's files are gone once installed), a stop-with-savepoint
 * and a restore from it read back from HDFS, more moves; the output of both runs equals plain
 * Flink's.
 */
@Timeout(300)
class RhinoDfsITCase {

    private static final String NAME = "through-dfs";
    private static final long EVENTS = 60_000;
    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = RhinoClusters.threeTaskManagers(METRICS);

    @TempDir static java.nio.file.Path hdfsBaseDir;

    private static MiniDFSCluster hdfs;
    private static String hdfsUri;

    @BeforeAll
    static void startHdfs() throws IOException {
        hdfs =
                new MiniDFSCluster.Builder(new HdfsConfiguration(), hdfsBaseDir.toFile())
                        .numDataNodes(1)
                        .build();
        hdfs.waitActive();
        hdfsUri = "hdfs://127.0.0.1:" + hdfs.getNameNodePort();
    }

    @AfterAll
    static void stopHdfs() {
        if (hdfs != null) {
            hdfs.shutdown();
        }
    }

    @Test
    void vnodesMoveBetweenTaskManagersThroughHdfsAcrossAStopAndRestore(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        Random random = new Random(20261125);
        String firstRun = "dfs-first-" + UUID.randomUUID();
        JobClient first = submit(firstRun, null, new JobID());
        JobID firstId = first.getJobID();
        HandoverManager manager = RhinoHandovers.awaitReady(firstId, NAME, Duration.ofSeconds(60));
        RhinoClusters.checkpoint(miniCluster, firstId);
        RhinoClusters.moveAcrossTaskManagers(firstId, NAME, manager, random, 4);
        RhinoClusters.checkpoint(miniCluster, firstId);
        assertThat(handoverBytesSent(firstId))
                .as("bytes the origins uploaded to HDFS for their handovers")
                .isPositive();
        assertThat(filesUnder(shipments(firstId)))
                .as("handover files left in HDFS after the installs")
                .isEmpty();

        String savepoint =
                miniCluster
                        .stopWithSavepoint(
                                firstId, hdfsUri + "/savepoints", false, SavepointFormatType.NATIVE)
                        .get(120, TimeUnit.SECONDS);
        first.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        assertThat(savepoint).startsWith(hdfsUri);

        // What a handover that failed after its upload leaves (the job restarts then, under the
        // same job id): the gates remove it when the job starts, before any handover can run.
        JobID secondId = new JobID();
        Path leftover = new Path(shipments(secondId), "h-failed/vnode-3/db/000042.sst");
        try (var out = leftover.getFileSystem().create(leftover, FileSystem.WriteMode.OVERWRITE)) {
            out.write(new byte[1024]);
        }
        String secondRun = "dfs-second-" + UUID.randomUUID();
        JobClient second = submit(secondRun, savepoint, secondId);
        assertThat(second.getJobID()).isEqualTo(secondId);
        HandoverManager restored =
                RhinoHandovers.awaitReady(secondId, NAME, Duration.ofSeconds(60));
        assertThat(filesUnder(shipments(secondId)))
                .as("uploads of failed handovers once the job runs")
                .isEmpty();
        RhinoClusters.moveAcrossTaskManagers(secondId, NAME, restored, random, 3);
        ReleasableRate.release(secondRun);
        second.getJobExecutionResult().get(180, TimeUnit.SECONDS);
        assertThat(filesUnder(shipments(secondId))).isEmpty();

        List<String> lines = new ArrayList<>(ResultSink.take(firstRun));
        lines.addAll(ResultSink.take(secondRun));
        Multisets.assertSameMultiset(
                "output with moves through HDFS, a stop and a restore vs plain Flink",
                SkewedCountsJob.plainFlink(firstRun, EVENTS),
                lines);
    }

    private static JobClient submit(String runId, String savepoint, JobID jobId) throws Exception {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        config.set(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID, jobId.toHexString());
        // checkpoints on demand, into HDFS
        config.set(
                CheckpointingOptions.CHECKPOINTING_INTERVAL,
                RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
        config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, hdfsUri + "/checkpoints");
        config.set(RhinoOptions.REPLICATION_MODE, "dfs");
        config.set(RhinoOptions.REPLICATION_DFS_PATH, hdfsUri + "/rhino");
        if (savepoint != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        SkewedCountsJob.rhino(
                env, runId, EVENTS, RhinoKeyedStreamOptions.builder(NAME).vnodes(8).build());
        return env.executeAsync(runId);
    }

    /** Where the job's handovers put their files. */
    private static Path shipments(JobID jobId) {
        return new Path(
                hdfsUri + "/rhino/" + PeerVnodeReplication.operatorPrefix(jobId.toString(), NAME));
    }

    private static List<Path> filesUnder(Path directory) throws IOException {
        FileSystem fs = directory.getFileSystem();
        List<Path> files = new ArrayList<>();
        if (!fs.exists(directory)) {
            return files;
        }
        for (FileStatus status : fs.listStatus(directory)) {
            if (status.isDir()) {
                files.addAll(filesUnder(status.getPath()));
            } else {
                files.add(status.getPath());
            }
        }
        return files;
    }

    private static long handoverBytesSent(JobID jobId) {
        long[] sum = {0};
        METRICS.getMetricsByGroup()
                .forEach(
                        (group, metrics) -> {
                            if (jobId.toString().equals(group.getAllVariables().get("<job_id>"))
                                    && metrics.get("rhinoHandoverBytesSent")
                                            instanceof Counter counter) {
                                sum[0] += counter.getCount();
                            }
                        });
        return sum[0];
    }
}
