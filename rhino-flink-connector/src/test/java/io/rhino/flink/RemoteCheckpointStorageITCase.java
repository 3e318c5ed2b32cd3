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
import io.rhino.flink.testjobs.CountingFileSystemFactory;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines;
import io.rhino.flink.testjobs.TestPipelines.Input;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.flink.testjobs.TestPipelines.RhinoSetup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * With checkpoint storage that is not the local file system (as HDFS or S3 would be), a handover
 * reads nothing from it: the origin exports from its live RocksDB instance's files.
 */
class RemoteCheckpointStorageITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers();

    private static final Input INPUT = new Input(20_000, 97, 1_000, 2);

    @TempDir Path checkpoints;

    @Test
    @Timeout(180)
    void handoversReadNothingFromTheCheckpointStorage(@InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        List<String> reference = RhinoEquivalenceITCase.run(Mode.PLAIN, INPUT.unlimited(), 8);
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        config.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                CountingFileSystemFactory.SCHEME + "://" + checkpoints.toAbsolutePath());
        // every file in the storage, none inlined in the handles: small SST files would be
        config.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.ZERO);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        String runId = "remote-storage-" + UUID.randomUUID();
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
        RandomHandovers driver = new RandomHandovers(jobId, TestPipelines.RHINO_OPERATORS, 7);
        driver.awaitRunning(Duration.ofSeconds(60));
        long checkpointed = RhinoClusters.completedCheckpoints(miniCluster, jobId);
        while (RhinoClusters.completedCheckpoints(miniCluster, jobId) < checkpointed + 3) {
            Thread.sleep(50); // exports then share files with completed checkpoints
        }

        long openedBefore = CountingFileSystemFactory.opened();
        int completed = driver.run(8, () -> false);
        long openedByHandovers = CountingFileSystemFactory.opened() - openedBefore;
        job.getJobExecutionResult().get();

        assertThat(completed).isEqualTo(8);
        assertThat(openedByHandovers)
                .as("files read from the checkpoint storage during 8 handovers")
                .isZero();
        Multisets.assertSameMultiset("output", reference, ResultSink.take(runId));
    }
}
