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
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.rhino.flink.cluster.LinkShape;
import io.rhino.flink.cluster.ProcessCluster;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.testjobs.Multisets;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network bed's faults, each under a job of its own on one bed (a JobManager, three
 * TaskManagers and HDFS on hosts of their own): a {@code kill -9} of a TaskManager; a TaskManager
 * cut off (its link down) during a checkpoint's replication, during a handover and during the
 * restore after another kill, each for longer than the heartbeat timeout and then healed; a slow
 * link (10 Mbit/s) under a handover and checkpoints; a full replica disk (a small tmpfs, mounted as
 * one TaskManager's replica directory before it starts, filled up and freed again).
 *
 * <p>After each fault: a move cut by it ended; once healed, a checkpoint completes replicated on
 * chains of live TaskManagers only, each of {@code factor - 1} members (chains repaired); no live
 * store holds a partial file or a file whose contents lost their checksum; the committed output
 * equals plain Flink's; after the replicas' retention no live store holds a file of the job. Runs
 * with {@code -Pnetbed}.
 */
class NetworkBedFaultsITCase {

    private static final Logger LOG = LoggerFactory.getLogger(NetworkBedFaultsITCase.class);

    private static final String NAME = "counts";
    private static final int VNODES = 12;
    private static final double EVENTS_PER_SECOND = 3_000;
    private static final int FACTOR = 2;
    private static final int SMALL_DISK = 2;
    private static final Duration RETENTION = Duration.ofSeconds(30);
    private static final Duration BACKOFF = Duration.ofSeconds(20);

    /** Longer than the heartbeat timeout (6 s): the JobManager takes the host for lost. */
    private static final Duration CUT = Duration.ofSeconds(10);

    enum Fault {
        KILL,
        CUT_DURING_REPLICATION,
        CUT_DURING_HANDOVER,
        CUT_DURING_RESTORE,
        SLOW_LINK,
        FULL_REPLICA_DISK
    }

    @TempDir Path directory;

    @Test
    @Timeout(value = 90, unit = TimeUnit.MINUTES)
    void everyFaultEndsExactlyOnceWithChainsRepairedAndNothingLeft() throws Exception {
        assumeTrue(Boolean.getBoolean("rhino.netbed.faults"), "the fault set runs with -Pnetbed");
        BedCluster.assumeAvailable();
        Path smallDisk = Files.createDirectories(directory.resolve("small-disk"));
        Process mount =
                new ProcessBuilder(
                                "mount",
                                "-t",
                                "tmpfs",
                                "-o",
                                "size=64m",
                                "tmpfs",
                                smallDisk.toString())
                        .redirectErrorStream(true)
                        .start();
        assumeTrue(mount.waitFor() == 0, "mounting a tmpfs needs root");
        Map<Fault, String> outcomes = new LinkedHashMap<>();
        try (BedCluster hosts =
                BedCluster.start(
                        directory,
                        FileCountsJob.oneSubtaskPerTaskManager(),
                        (index, config) ->
                                config.set(
                                        RhinoOptions.REPLICATION_DIR,
                                        replicaDisk(index, smallDisk).toString()))) {
            ReplicaDisks disks =
                    new ReplicaDisks(
                            List.of(
                                    replicaDisk(0, smallDisk),
                                    replicaDisk(1, smallDisk),
                                    replicaDisk(2, smallDisk)));
            Random random = new Random(Long.getLong("rhino.test.seed", 41));
            int run = 0;
            for (Fault fault : faults()) {
                outcomes.put(fault, runFault(hosts, disks, fault, run++, random, smallDisk));
            }
        } finally {
            new ProcessBuilder("umount", smallDisk.toString()).start().waitFor();
        }
        LOG.info("Network bed faults passed: {}", outcomes);
    }

    /** Every fault, or those of {@code -Drhino.netbed.fault-set=KILL,SLOW_LINK,...}. */
    private static List<Fault> faults() {
        String chosen = System.getProperty("rhino.netbed.fault-set", "");
        if (chosen.isBlank()) {
            return List.of(Fault.values());
        }
        return java.util.Arrays.stream(chosen.split(","))
                .map(String::strip)
                .map(Fault::valueOf)
                .toList();
    }

    private String runFault(
            BedCluster hosts,
            ReplicaDisks disks,
            Fault fault,
            int run,
            Random random,
            Path smallDisk)
            throws Exception {
        ProcessCluster cluster = hosts.cluster;
        FileCountsJob job =
                new FileCountsJob(
                        NAME,
                        BedCluster.TASK_MANAGERS,
                        VNODES,
                        // long enough for a restarted TaskManager's start and the checks after
                        // the fault on a loaded machine: they need the job running
                        (long) (EVENTS_PER_SECOND * 240),
                        2_000,
                        EVENTS_PER_SECOND);
        Configuration config =
                BedCluster.withReplication(
                        hosts.jobConfig("checkpoints-" + run, Duration.ofSeconds(2)),
                        FACTOR,
                        RETENTION);
        config.set(RhinoOptions.REPLICATION_FULL_STORE_BACKOFF, BACKOFF);
        RhinoClusters.withRestarts(config, 1_000, Duration.ofSeconds(1));
        Path output = directory.resolve("output-" + run);
        JobClient client = job.submit(cluster, config, output, "netbed-" + fault);
        String jobId = client.getJobID().toString();
        RemoteOperator operator =
                new RemoteOperator(cluster, BedCluster.RHINO_REST_PORT, jobId, NAME, VNODES);
        JsonNode view = operator.awaitRunning(-1, Duration.ofSeconds(180));
        cluster.checkpoint(jobId, Duration.ofSeconds(120));
        List<String> moves = new ArrayList<>();
        String outcome = inject(hosts, operator, jobId, fault, view, random, moves, smallDisk);
        cluster.awaitTaskManagers(BedCluster.TASK_MANAGERS, Duration.ofSeconds(180));
        operator.awaitRunning(-1, Duration.ofSeconds(300));
        for (String move : moves) {
            String status =
                    operator.rhino()
                            .awaitEnd(
                                    operator.path() + "/handovers/" + move, Duration.ofSeconds(120))
                            .at("/status/id")
                            .asText();
            assertThat(status).as("move %s cut by %s", move, fault).isIn("COMPLETED", "FAILED");
            outcome += ", move " + status;
        }
        assertChainsRepaired(cluster, operator, jobId, fault);
        assertThat(disks.lingeringPartialFiles(Duration.ofSeconds(10)))
                .as("partial replica files left after %s", fault)
                .isEmpty();
        assertThat(disks.liveCorruptedFiles())
                .as("corrupted replica files after %s", fault)
                .isEmpty();
        FileCountsJob.releaseInput(output);
        client.getJobExecutionResult().get(10, TimeUnit.MINUTES);
        assertThat(Multisets.counts(RemoteOperator.committedLines(output)))
                .as("committed output after %s vs plain Flink", fault)
                .isEqualTo(Multisets.counts(job.plainFlinkLines()));
        awaitNoReplicaLeft(disks, jobId, fault);
        LOG.info("Fault {}: exactly-once, chains repaired, nothing left: {}", fault, outcome);
        return outcome;
    }

    private String inject(
            BedCluster hosts,
            RemoteOperator operator,
            String jobId,
            Fault fault,
            JsonNode view,
            Random random,
            List<String> moves,
            Path smallDisk)
            throws Exception {
        ProcessCluster cluster = hosts.cluster;
        int owner = operator.taskManagerOf(view.at("/vnodes/0/taskmanager").asText());
        long restarts = JobRestarts.restarts(cluster, jobId);
        switch (fault) {
            case KILL -> {
                cluster.kill(owner);
                JobRestarts.awaitRestartAfter(cluster, jobId, restarts, Duration.ofSeconds(60));
                cluster.restart(owner);
                return "killed TaskManager " + owner;
            }
            case CUT_DURING_REPLICATION -> {
                triggerCheckpoint(cluster, jobId);
                Thread.sleep(100 + random.nextInt(300));
                cutFor(hosts, owner);
                return "TaskManager " + owner + " cut off during a checkpoint";
            }
            case CUT_DURING_HANDOVER -> {
                int vnode = random.nextInt(VNODES);
                int origin =
                        operator.taskManagerOf(
                                view.at("/vnodes/" + vnode + "/taskmanager").asText());
                int targetSubtask = -1;
                int target = -1;
                for (JsonNode other : view.get("vnodes")) {
                    int taskManager = operator.taskManagerOf(other.get("taskmanager").asText());
                    if (taskManager != origin) {
                        targetSubtask = other.get("owner").asInt();
                        target = taskManager;
                    }
                }
                String move = "netbed-cut-" + System.nanoTime();
                RestCalls.Reply accepted =
                        operator.rhino()
                                .post(
                                        operator.path() + "/handovers",
                                        "{\"request-id\": \""
                                                + move
                                                + "\", \"moves\": [{\"vnode\": "
                                                + vnode
                                                + ", \"to\": "
                                                + targetSubtask
                                                + "}]}");
                assertThat(accepted.status()).as(accepted.text()).isEqualTo(202);
                moves.add(move);
                Thread.sleep(random.nextInt(150));
                int victim = random.nextBoolean() ? origin : target;
                cutFor(hosts, victim);
                return "TaskManager "
                        + victim
                        + " ("
                        + (victim == origin ? "origin" : "target")
                        + ") cut off during the move of vnode "
                        + vnode;
            }
            case CUT_DURING_RESTORE -> {
                cluster.kill(owner);
                cluster.restart(owner);
                JobRestarts.awaitRestoring(cluster, jobId, restarts, Duration.ofSeconds(60));
                int other =
                        (owner + 1 + random.nextInt(BedCluster.TASK_MANAGERS - 1))
                                % BedCluster.TASK_MANAGERS;
                cutFor(hosts, other);
                return "killed TaskManager "
                        + owner
                        + ", TaskManager "
                        + other
                        + " cut off in the restore";
            }
            case SLOW_LINK -> {
                String host = BedCluster.taskManager(owner);
                LinkShape slow = LinkShape.fromSystemProperties().withRate(10_000_000L);
                hosts.bed.shape(host, slow);
                try {
                    long started = System.nanoTime();
                    operator.moveBetweenTaskManagers(random, 2, "netbed-slow");
                    long checkpoint = cluster.checkpoint(jobId, Duration.ofSeconds(180));
                    return "TaskManager "
                            + owner
                            + " at "
                            + slow
                            + ": 2 moves and checkpoint "
                            + checkpoint
                            + " in "
                            + (System.nanoTime() - started) / 1_000_000
                            + " ms";
                } finally {
                    hosts.bed.shape(host, LinkShape.fromSystemProperties());
                }
            }
            case FULL_REPLICA_DISK -> {
                Path filler = fill(smallDisk, 8 * 1024);
                try {
                    String full = cluster.taskManagerAddress(SMALL_DISK) + ":";
                    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
                    JsonNode replication;
                    do {
                        cluster.checkpoint(jobId, Duration.ofSeconds(120));
                        replication = operator.rhino().get(operator.path() + "/replication").json();
                    } while (!replication.get("full-stores").toString().contains(full)
                            && System.nanoTime() < deadline);
                    assertThat(replication.get("full-stores").toString())
                            .as("full stores reported: %s", replication)
                            .contains(full);
                    assertThat(chainMembers(replication))
                            .as("chains leave the full TaskManager out")
                            .noneMatch(member -> member.startsWith(full));
                } finally {
                    Files.delete(filler);
                }
                // back in the chains once the back-off passed
                long deadline = System.nanoTime() + BACKOFF.plusSeconds(90).toNanos();
                JsonNode replication;
                do {
                    Thread.sleep(1_000);
                    replication = operator.rhino().get(operator.path() + "/replication").json();
                } while (!(replication.get("full-stores").isEmpty()
                                && chainMembers(replication).stream()
                                        .anyMatch(
                                                m ->
                                                        m.startsWith(
                                                                cluster.taskManagerAddress(
                                                                                SMALL_DISK)
                                                                        + ":")))
                        && System.nanoTime() < deadline);
                assertThat(chainMembers(replication))
                        .as("the freed TaskManager is in a chain again: %s", replication)
                        .anyMatch(m -> m.startsWith(cluster.taskManagerAddress(SMALL_DISK) + ":"));
                return "TaskManager "
                        + SMALL_DISK
                        + "'s replica disk filled, left the chains, freed, back";
            }
            default -> throw new IllegalStateException(fault.toString());
        }
    }

    /** Cuts TaskManager {@code index}'s host off for {@link #CUT}, then heals it. */
    private static void cutFor(BedCluster hosts, int index) throws Exception {
        String host = BedCluster.taskManager(index);
        hosts.bed.cut(host);
        try {
            Thread.sleep(CUT.toMillis());
        } finally {
            hosts.bed.heal(host);
        }
    }

    /**
     * Once healed, a checkpoint completes, replicated by every subtask on a chain of {@code factor
     * - 1} live TaskManagers other than its own.
     */
    private static void assertChainsRepaired(
            ProcessCluster cluster, RemoteOperator operator, String jobId, Fault fault)
            throws Exception {
        Set<String> live = new HashSet<>();
        for (JsonNode taskManager : cluster.get("/taskmanagers").path("taskmanagers")) {
            live.add(taskManager.path("id").asText());
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        // one checkpoint after the fault, then the view until it shows that one (or a later
        // periodic one) replicated: the gates report replication with their load, seconds later,
        // so a new checkpoint per look would stay ahead of every report
        long checkpoint = cluster.checkpoint(jobId, Duration.ofSeconds(120));
        JsonNode replication = null;
        while (System.nanoTime() < deadline) {
            assertThat(cluster.jobStatus(jobId))
                    .as("the job still runs for the chain check after %s", fault)
                    .isEqualTo("RUNNING");
            replication = operator.rhino().get(operator.path() + "/replication").json();
            boolean repaired = true;
            for (JsonNode subtask : replication.get("subtasks")) {
                repaired &= subtask.path("last-replicated-checkpoint").asLong(-1) >= checkpoint;
                repaired &= subtask.get("chain").size() == FACTOR - 1;
                for (JsonNode member : subtask.get("chain")) {
                    int index = operator.taskManagerOf(member.asText());
                    repaired &= cluster.isAlive(index);
                }
            }
            if (repaired) {
                return;
            }
            Thread.sleep(1_000);
        }
        throw new AssertionError(
                "Chains not repaired after "
                        + fault
                        + " by checkpoint "
                        + checkpoint
                        + ": "
                        + replication
                        + " (TaskManagers "
                        + live
                        + ")");
    }

    private static List<String> chainMembers(JsonNode replication) {
        List<String> members = new ArrayList<>();
        for (JsonNode subtask : replication.get("subtasks")) {
            subtask.get("chain").forEach(member -> members.add(member.asText()));
        }
        return members;
    }

    private static void awaitNoReplicaLeft(ReplicaDisks disks, String jobId, Fault fault)
            throws Exception {
        long deadline = System.nanoTime() + RETENTION.plusSeconds(60).toNanos();
        List<Path> left = disks.liveFilesOf(jobId);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(1_000);
            left = disks.liveFilesOf(jobId);
        }
        assertThat(left).as("replica files of job %s left after %s", jobId, fault).isEmpty();
    }

    private static void triggerCheckpoint(ProcessCluster cluster, String jobId) throws Exception {
        java.net.http.HttpResponse<String> reply =
                java.net.http.HttpClient.newHttpClient()
                        .send(
                                java.net.http.HttpRequest.newBuilder(
                                                java.net.URI.create(
                                                        cluster.restAddress()
                                                                + "/jobs/"
                                                                + jobId
                                                                + "/checkpoints"))
                                        .header("Content-Type", "application/json")
                                        .POST(
                                                java.net.http.HttpRequest.BodyPublishers.ofString(
                                                        "{}"))
                                        .build(),
                                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(reply.statusCode()).as(reply.body()).isEqualTo(202);
    }

    /** Fills the disk under {@code directory} up to {@code leave} free bytes; the filler file. */
    private static Path fill(Path directory, long leave) throws Exception {
        Path filler = directory.resolve("filler");
        long size = Files.getFileStore(directory).getUsableSpace() - leave;
        try (RandomAccessFile file = new RandomAccessFile(filler.toFile(), "rw")) {
            byte[] block = new byte[64 * 1024];
            for (long written = 0; written < size; written += block.length) {
                file.write(block, 0, (int) Math.min(block.length, size - written));
            }
        } catch (IOException full) {
            // the TaskManager's replication wrote to the disk meanwhile and took the rest: full
            // is what the filler is for
            assertThat(Files.getFileStore(directory).getUsableSpace())
                    .as("space left when the filler failed: %s", full.getMessage())
                    .isLessThanOrEqualTo(leave + 64 * 1024);
        }
        return filler;
    }

    private Path replicaDisk(int index, Path smallDisk) {
        return index == SMALL_DISK ? smallDisk : directory.resolve("replicas-" + index);
    }
}
