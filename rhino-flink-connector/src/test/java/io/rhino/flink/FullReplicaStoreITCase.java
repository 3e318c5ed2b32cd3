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
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rhino.flink.cluster.ProcessCluster;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TaskManager's replica disk is full (a real tmpfs mounted for the test and filled up; Linux
 * and root, skipped elsewhere) under a Rhino job with Flink's default checkpoint failure tolerance.
 * The replication that hits the full disk declines its checkpoint; that TaskManager is then left
 * out of every replica chain, so the next checkpoints complete, replicated to the others, while the
 * job runs on. Once space is freed and the back-off has passed it holds replicas again. The
 * exactly-once output equals plain Flink's.
 */
class FullReplicaStoreITCase {

    private static final Logger LOG = LoggerFactory.getLogger(FullReplicaStoreITCase.class);

    private static final String NAME = "counts";
    private static final int TASK_MANAGERS = 3;
    private static final int FULL = 2;
    private static final int VNODES = 12;
    private static final int KEYS = 2_000;
    private static final long EVENTS = 240_000;
    private static final double EVENTS_PER_SECOND = 3_000;
    private static final Duration BACKOFF = Duration.ofSeconds(20);

    private static final FileCountsJob JOB =
            new FileCountsJob(NAME, TASK_MANAGERS, VNODES, EVENTS, KEYS, EVENTS_PER_SECOND);

    @TempDir Path directory;

    @Test
    @Timeout(420)
    void aTaskManagerWithAFullReplicaDiskLeavesTheChainsAndComesBackOnceSpaceIsFree()
            throws Exception {
        Path smallDisk = Files.createDirectories(directory.resolve("small-disk"));
        mountTmpfs(smallDisk, 4L * 1024 * 1024);
        try {
            Path filler = fill(smallDisk, 8 * 1024);
            Configuration common = FileCountsJob.oneSubtaskPerTaskManager();
            try (ProcessCluster cluster =
                    ProcessCluster.start(
                            directory.resolve("cluster"),
                            TASK_MANAGERS,
                            common,
                            (index, config) ->
                                    config.set(
                                            RhinoOptions.REPLICATION_DIR,
                                            (index == FULL
                                                            ? smallDisk
                                                            : directory.resolve(
                                                                    "replicas-" + index))
                                                    .toString()))) {
                int restPort = ProcessCluster.freePort();
                Path output = directory.resolve("output");
                String jobId = submit(cluster, restPort, output);
                RemoteOperator operator =
                        new RemoteOperator(cluster, restPort, jobId, NAME, VNODES);
                operator.awaitRunning(-1, Duration.ofSeconds(180));
                assertThat(awaitChainMembers(operator))
                        .as("chains before any replica went to the full disk")
                        .anyMatch(onFullTaskManager());

                // the first checkpoints hit the full disk and are declined; the job may restart
                long completed = cluster.checkpoint(jobId, Duration.ofSeconds(120));
                JsonNode view = awaitReplicated(operator, completed);
                LOG.info("Replication with a full replica disk: {}", view);
                List<String> fullStores = new ArrayList<>();
                view.get("full-stores").forEach(tm -> fullStores.add(tm.asText()));
                assertThat(fullStores)
                        .as("full-stores")
                        .singleElement()
                        .matches(onFullTaskManager());
                assertThat(chainMembers(view)).as("chains").noneMatch(onFullTaskManager());
                CliRun cli =
                        CliRun.of(
                                "--url",
                                "http://127.0.0.1:" + restPort,
                                "replication",
                                jobId,
                                NAME);
                assertThat(cli.code()).as(cli.err()).isZero();
                assertThat(cli.out())
                        .contains("replica stores out of space")
                        .contains(ProcessCluster.taskManagerHost(FULL) + ":");
                JsonNode history = cluster.get("/jobs/" + jobId + "/checkpoints").get("history");
                assertThat(history.findValuesAsText("status"))
                        .as("checkpoints, the one that hit the full disk declined")
                        .contains("FAILED");
                // Flink logs a declined checkpoint's cause on the JobManager
                assertThat(Files.readString(cluster.jobManagerLog()))
                        .as("the JobManager's log of the declined checkpoint")
                        .contains("No space left on device")
                        .contains("rhino.replication.dir");

                Files.delete(filler);
                long again = awaitBackInTheChains(cluster, operator, jobId);
                LOG.info("The freed replica disk holds replicas again as of checkpoint {}", again);

                FileCountsJob.releaseInput(output);
                FileCountsJob.awaitFinished(cluster, jobId, Duration.ofSeconds(300));
                assertThat(Multisets.counts(RemoteOperator.committedLines(output)))
                        .as("committed output lines with a full replica disk vs plain Flink")
                        .isEqualTo(Multisets.counts(JOB.plainFlinkLines()));
            }
        } finally {
            new ProcessBuilder("umount", smallDisk.toString()).start().waitFor();
        }
    }

    private String submit(ProcessCluster cluster, int restPort, Path output) throws Exception {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(
                config, directory.resolve("checkpoints"), RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
        RhinoClusters.withPeerReplication(config, directory.resolve("unused"), "full-store-it");
        RhinoClusters.withRestarts(config, 20, Duration.ofSeconds(1));
        config.set(RhinoOptions.REPLICATION_FULL_STORE_BACKOFF, BACKOFF);
        config.set(RhinoOptions.REST_PORT, restPort);
        return JOB.submit(cluster, config, output, "full-store").getJobID().toString();
    }

    /**
     * The members of the operator's replica chains, once it has any: the hub sets them a moment
     * after the subtasks report where they run.
     */
    private static List<String> awaitChainMembers(RemoteOperator operator) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<String> members = chainMembers(operator.rhino().get(replication(operator)).json());
        while (members.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            members = chainMembers(operator.rhino().get(replication(operator)).json());
        }
        return members;
    }

    /** Waits until every subtask replicated {@code checkpoint} or later; the replication view. */
    private static JsonNode awaitReplicated(RemoteOperator operator, long checkpoint)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode view = null;
        while (System.nanoTime() < deadline) {
            view = operator.rhino().get(replication(operator)).json();
            boolean reached = true;
            for (JsonNode subtask : view.get("subtasks")) {
                reached &= subtask.path("last-replicated-checkpoint").asLong(-1) >= checkpoint;
            }
            if (reached) {
                return view;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("Checkpoint " + checkpoint + " not replicated: " + view);
    }

    /**
     * Once the back-off passed, the freed TaskManager is in a chain again and a checkpoint is
     * replicated to it; that checkpoint's id.
     */
    private static long awaitBackInTheChains(
            ProcessCluster cluster, RemoteOperator operator, String jobId) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode view = null;
        while (System.nanoTime() < deadline) {
            view = operator.rhino().get(replication(operator)).json();
            if (view.get("full-stores").isEmpty()
                    && chainMembers(view).stream().anyMatch(onFullTaskManager())) {
                long checkpoint = cluster.checkpoint(jobId, Duration.ofSeconds(60));
                JsonNode replicated = awaitReplicated(operator, checkpoint);
                assertThat(chainMembers(replicated)).anyMatch(onFullTaskManager());
                return checkpoint;
            }
            Thread.sleep(250);
        }
        throw new AssertionError(
                "The freed TaskManager is in no chain again: "
                        + view
                        + "\nThe JobManager's chain decisions:\n"
                        + chainDecisions(cluster));
    }

    /** The JobManager's log lines of replica chains sent and of full stores left out. */
    private static String chainDecisions(ProcessCluster cluster) throws IOException {
        return String.join(
                "\n",
                Files.readAllLines(cluster.jobManagerLog()).stream()
                        .filter(
                                line ->
                                        line.contains("Replica chains of Rhino operator")
                                                || line.contains("Replica stores of Rhino operator")
                                                || line.contains("switched from state"))
                        .toList());
    }

    private static String replication(RemoteOperator operator) {
        return operator.path() + "/replication";
    }

    private static List<String> chainMembers(JsonNode replication) {
        List<String> members = new ArrayList<>();
        for (JsonNode subtask : replication.get("subtasks")) {
            subtask.get("chain").forEach(member -> members.add(member.asText()));
        }
        return members;
    }

    private static Predicate<String> onFullTaskManager() {
        return name -> name.startsWith(ProcessCluster.taskManagerHost(FULL) + ":");
    }

    private static void mountTmpfs(Path at, long bytes) throws Exception {
        Process mount =
                new ProcessBuilder(
                                "mount",
                                "-t",
                                "tmpfs",
                                "-o",
                                "size=" + bytes,
                                "tmpfs",
                                at.toString())
                        .redirectErrorStream(true)
                        .start();
        String output = new String(mount.getInputStream().readAllBytes());
        assumeThat(mount.waitFor())
                .as("mounting a small tmpfs needs Linux and root: %s", output)
                .isZero();
    }

    /** Fills the disk under {@code directory} up to {@code leave} free bytes; the filler file. */
    private static Path fill(Path directory, long leave) throws IOException {
        Path filler = directory.resolve("filler");
        long size = Files.getFileStore(directory).getUsableSpace() - leave;
        try (RandomAccessFile file = new RandomAccessFile(filler.toFile(), "rw")) {
            byte[] block = new byte[64 * 1024];
            for (long written = 0; written < size; written += block.length) {
                file.write(block, 0, (int) Math.min(block.length, size - written));
            }
        }
        return filler;
    }
}
