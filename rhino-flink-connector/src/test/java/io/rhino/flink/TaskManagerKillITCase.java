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

import com.fasterxml.jackson.databind.JsonNode;
import io.rhino.flink.cluster.ProcessCluster;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.replication.PeerVnodeReplication;
import io.rhino.flink.replication.ReplicaListing;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.QuietPhase;
import io.rhino.flink.testjobs.TestCertificates;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.replication.SelfSignedKeyStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TaskManager process dies with {@code kill -9} under a Rhino job replicating its vnodes between
 * three TaskManager processes, each on its own address and with its own replica disk. Moves between
 * processes go over Rhino's REST API and the replication protocol's sockets, before and after the
 * crash. The job's exactly-once file output equals plain Flink's, and after the recovery every
 * vnode's checkpoint is again held by exactly one surviving TaskManager. Nothing is downloaded:
 * every vnode restores from a replica, fetched from a survivor when its subtask restarted on the
 * TaskManager it ran on (which never holds its own replica) or, with Flink's task-local recovery
 * on, from its task-local copy there. Without it, the checkpoint restored is one that reused the
 * snapshots of idle vnodes, whose chains listed their copies again instead of receiving them.
 */
class TaskManagerKillITCase {

    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerKillITCase.class);

    private static final String NAME = "counts";
    private static final int TASK_MANAGERS = 3;
    private static final int PARALLELISM = 3;
    private static final int VNODES = 12;
    private static final int KEYS = 2_000;
    // up to 120 s of input, released once the checks are done: the job must still be reading when
    // the checks after the kill ask Rhino's REST API, which goes with the job (a slow machine's
    // checks before the kill took 35-45 s)
    private static final long EVENTS = 360_000;
    private static final double EVENTS_PER_SECOND = 3_000;
    private static final String TLS_PASSWORD = "tm-kill-it-password";

    // After the first 2 s all events go to one key until the input is released (or 100 s passed):
    // the checkpoint restored after the crash is taken while all vnodes but one idle, so their
    // replicas of it are relisted ones (the chain's copies of the previous checkpoint's
    // snapshots), and with task-local recovery their local copies are linked ones; the events
    // after the phase write every vnode again, so the output shows whether each restored with all
    // of its state.
    private static final QuietPhase QUIET = new QuietPhase(6_000, 300_000, 1);

    private static final FileCountsJob JOB =
            new FileCountsJob(NAME, PARALLELISM, VNODES, EVENTS, KEYS, EVENTS_PER_SECOND)
                    .withQuietPhase(QUIET);

    // a short job after the victim's restart, in every slot, so on it too (with local recovery
    // on, Flink's scheduler does not spread a job of three over the three TaskManagers)
    private static final FileCountsJob SMALL_JOB =
            new FileCountsJob(NAME, 2 * TASK_MANAGERS, 12, 6_000, KEYS, EVENTS_PER_SECOND);

    @TempDir Path directory;

    private boolean checkReplicasBeforeOpen;

    /**
     * With or without task-local recovery; the restored subtasks check their local replicas before
     * the vnodes open (Rhino's default) or after, while they process: a check that took an intact
     * replica for a damaged one would fail the task and its vnode would be downloaded.
     */
    @ParameterizedTest(name = "task-local recovery {0}, replicas checked before the open {1}")
    @CsvSource({"false, true", "false, false", "true, true"})
    @Timeout(420)
    void aKilledTaskManagersVnodesRecoverAndReplicateAgainOnTheSurvivors(
            boolean localRecovery, boolean checkBeforeOpen) throws Exception {
        checkReplicasBeforeOpen = checkBeforeOpen;
        Configuration common = FileCountsJob.oneSubtaskPerTaskManager();
        if (!checkBeforeOpen) {
            // ReplicaChecksAfterOpenTest checks after the open with real vnodes in every build
            RhinoClusters.onlyWithAllVariants("replicas checked after the open");
        }
        if (localRecovery) {
            RhinoClusters.onlyWithAllVariants("task-local recovery");
            common.set(CheckpointingOptions.LOCAL_BACKUP_ENABLED, true);
            common.set(StateRecoveryOptions.LOCAL_RECOVERY, true);
        }
        // replication over mutual TLS with the stores of Flink's internal SSL, as users run it
        // between hosts; ReplicationTlsITCase (-Plifecycle) replaces a TaskManager by a fresh one
        Path store = SelfSignedKeyStore.create(directory, "cluster", TLS_PASSWORD);
        try (ProcessCluster cluster =
                ProcessCluster.start(
                        directory.resolve("cluster"),
                        TASK_MANAGERS,
                        common,
                        (index, config) -> {
                            config.set(
                                    RhinoOptions.REPLICATION_DIR,
                                    replicaDirectory(index).toString());
                            config.set(RhinoOptions.REPLICATION_SSL_ENABLED, true);
                            TestCertificates.withInternalStores(config, store, TLS_PASSWORD);
                        })) {
            int restPort = ProcessCluster.freePort();
            Path output = directory.resolve("output");
            JobClient job = submit(cluster, restPort, output);
            String jobId = job.getJobID().toString();
            RemoteOperator operator = new RemoteOperator(cluster, restPort, jobId, NAME, VNODES);
            Random random = new Random(20261124);

            operator.awaitRunning(-1, Duration.ofSeconds(180));
            operator.moveBetweenTaskManagers(random, 3, "before");
            cluster.checkpoint(jobId, Duration.ofSeconds(60));
            // with task-local recovery the reused snapshots keep their local copies (linked
            // into each reusing checkpoint's local directory)
            long beforeCrash = checkpointRelistingIdleVnodes(cluster, operator, jobId);
            // a chain of three on three TaskManagers: both others hold each vnode
            assertEveryVnodeHeldBy(2, jobId, beforeCrash, -1);
            awaitReplicationReported(operator, beforeCrash, 2);
            CliRun cli =
                    CliRun.of("--url", "http://127.0.0.1:" + restPort, "replication", jobId, NAME);
            assertThat(cli.code()).as(cli.err()).isZero();
            assertThat(cli.out()).contains("mode peers  factor 3").contains("127.0.0.");
            for (int index = 0; index < TASK_MANAGERS; index++) {
                assertThat(
                                Files.readString(
                                        cluster.taskManagerDirectory(index)
                                                .resolve("taskmanager-" + index + ".log")))
                        .as("log of TaskManager %d", index)
                        .contains("(mutual TLS)");
            }

            JsonNode beforeKill = operator.view();
            int victim = operator.taskManagerOf(beforeKill.at("/vnodes/0/taskmanager").asText());
            long killed = System.nanoTime();
            cluster.kill(victim);
            operator.awaitRunning(victim, Duration.ofSeconds(180));
            LOG.info(
                    "TaskManager {} killed; operator running on the survivors after {} ms",
                    victim,
                    (System.nanoTime() - killed) / 1_000_000);
            assertThat(
                            cluster.get("/jobs/" + jobId + "/checkpoints")
                                    .at("/latest/restored/id")
                                    .asLong())
                    .as("checkpoint the job restored after the crash")
                    .isEqualTo(beforeCrash);
            cluster.checkpoint(jobId, Duration.ofSeconds(90));
            long afterCrash = cluster.checkpoint(jobId, Duration.ofSeconds(60));
            assertEveryVnodeHeldBy(1, jobId, afterCrash, victim);
            awaitReplicationReported(operator, afterCrash, 1);
            // every subtask restarted: each restores its vnodes from a replica, on its new
            // TaskManager or fetched from a survivor that holds one; none from the storage
            awaitRestoredWithoutDownload(operator, beforeKill);
            awaitReplicaStoreMetrics(cluster);
            operator.moveBetweenTaskManagers(random, 3, "after");

            FileCountsJob.releaseInput(output);
            job.getJobExecutionResult().get(300, TimeUnit.SECONDS);
            assertThat(cluster.isAlive(victim)).isFalse();
            // The file sink commits on checkpoints: across the crash every record is in the
            // output exactly once, so the lines equal plain Flink's, duplicates included.
            assertThat(Multisets.counts(RemoteOperator.committedLines(output)))
                    .as("committed output lines with moves and a TaskManager crash vs plain Flink")
                    .isEqualTo(Multisets.counts(JOB.plainFlinkLines()));

            // The victim comes back on its address and replica disk: the first Rhino gate on it
            // removes the store its killed predecessor left there.
            List<Path> deadStores = stores(replicaDirectory(victim));
            assertThat(deadStores).as("the killed TaskManager's store").isNotEmpty();
            cluster.restart(victim);
            cluster.awaitTaskManagers(TASK_MANAGERS, Duration.ofSeconds(120));
            Configuration again = replicatedJobConfig(ProcessCluster.freePort(), "after-restart");
            SMALL_JOB
                    .submit(cluster, again, directory.resolve("output-2"), "after-restart")
                    .getJobExecutionResult()
                    .get(120, TimeUnit.SECONDS);
            assertThat(stores(replicaDirectory(victim)))
                    .as("stores on the restarted TaskManager's replica disk")
                    .doesNotContainAnyElementsOf(deadStores);
        }
    }

    private JobClient submit(ProcessCluster cluster, int restPort, Path output) throws Exception {
        return JOB.submit(cluster, replicatedJobConfig(restPort, "checkpoints"), output, "tm-kill");
    }

    private Configuration replicatedJobConfig(int restPort, String checkpoints) {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(
                config, directory.resolve(checkpoints), RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
        RhinoClusters.withPeerReplication(config, directory.resolve("unused"), "tm-kill-it");
        config.set(RhinoOptions.REPLICATION_FACTOR, 3);
        config.set(RhinoOptions.REPLICATION_RESTORE_CHECK_BEFORE_OPEN, checkReplicasBeforeOpen);
        // while a lost TaskManager's slots still look free, restarts may fail more than once
        RhinoClusters.withRestarts(config, 20, Duration.ofSeconds(1));
        config.set(RhinoOptions.REST_PORT, restPort);
        return config;
    }

    /**
     * Takes checkpoints until one reuses the snapshots of all vnodes but the quiet phase's (their
     * chains relist their copies) and returns its id. The first checkpoint of a vnode instance
     * snapshots it, and until the quiet phase began every vnode was written, so this may take a
     * few.
     */
    private static long checkpointRelistingIdleVnodes(
            ProcessCluster cluster, RemoteOperator operator, String jobId) throws Exception {
        long reused = 0;
        for (int attempt = 0; attempt < 6; attempt++) {
            long checkpoint = cluster.checkpoint(jobId, Duration.ofSeconds(60));
            // the gauge of the checkpoint before said 0 or fewer: wait for the new value
            long deadline = System.nanoTime() + Duration.ofSeconds(6).toNanos();
            while (System.nanoTime() < deadline) {
                reused = operator.metricSum("rhinoVnodesReusedAtLastCheckpoint");
                if (reused >= VNODES - 1) {
                    LOG.info("Checkpoint {} reused {} idle vnodes' snapshots", checkpoint, reused);
                    return checkpoint;
                }
                Thread.sleep(500);
            }
        }
        throw new AssertionError(
                "No checkpoint in the quiet phase reused the snapshots of all vnodes but one; the"
                        + " last reused "
                        + reused);
    }

    /** The replica stores (one directory per TaskManager that ran there) under a replica disk. */
    private static List<Path> stores(Path replicaDisk) throws IOException {
        try (Stream<Path> stores = Files.list(replicaDisk)) {
            return stores.filter(Files::isDirectory).sorted().toList();
        }
    }

    /**
     * Waits until the REST API reports every subtask's replication at {@code checkpoint} or later,
     * then checks what it says: a chain of {@code chainLength} other TaskManagers per subtask, and
     * bytes sent by every subtask that owns vnodes.
     */
    private static void awaitReplicationReported(
            RemoteOperator operator, long checkpoint, int chainLength) throws Exception {
        RestCalls rhino = operator.rhino();
        String operatorPath = operator.path();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode replication = null;
        while (System.nanoTime() < deadline) {
            RestCalls.Reply reply = rhino.get(operatorPath + "/replication");
            assertThat(reply.status()).as(reply.text()).isEqualTo(200);
            replication = reply.json();
            boolean reached = true;
            for (JsonNode subtask : replication.get("subtasks")) {
                reached &= subtask.path("last-replicated-checkpoint").asLong(-1) >= checkpoint;
            }
            if (reached) {
                break;
            }
            Thread.sleep(250);
        }
        assertThat(replication.get("mode").asText()).isEqualTo("peers");
        assertThat(replication.get("factor").asInt()).isEqualTo(TASK_MANAGERS);
        Set<Integer> owners = new HashSet<>();
        for (JsonNode vnode : rhino.get(operatorPath).json().get("vnodes")) {
            owners.add(vnode.get("owner").asInt());
        }
        for (JsonNode subtask : replication.get("subtasks")) {
            String what = "replication of subtask " + subtask;
            assertThat(subtask.path("last-replicated-checkpoint").asLong(-1))
                    .as(what)
                    .isGreaterThanOrEqualTo(checkpoint);
            assertThat(subtask.get("lag-ms").asLong()).as(what).isNotNegative();
            List<String> chain = new ArrayList<>();
            subtask.get("chain").forEach(member -> chain.add(member.asText()));
            assertThat(chain)
                    .as(what)
                    .hasSize(chainLength)
                    .doesNotHaveDuplicates()
                    .doesNotContain(subtask.get("taskmanager").asText());
            if (owners.contains(subtask.get("subtask").asInt())) {
                assertThat(subtask.get("bytes").asLong()).as(what).isPositive();
            }
        }
        LOG.info("Replication reported over REST: {}", replication);
    }

    /**
     * Every vnode's listing of {@code checkpoint} is on {@code expected} live TaskManagers' disks.
     */
    private void assertEveryVnodeHeldBy(int expected, String jobId, long checkpoint, int lost)
            throws IOException {
        String prefix = PeerVnodeReplication.operatorPrefix(jobId, NAME);
        for (int vnode = 0; vnode < VNODES; vnode++) {
            String listing =
                    ReplicaListing.path(ReplicaListing.vnodeDirectory(prefix, vnode), checkpoint);
            int holders = 0;
            for (int index = 0; index < TASK_MANAGERS; index++) {
                if (index != lost && holds(replicaDirectory(index), listing)) {
                    holders++;
                }
            }
            assertThat(holders)
                    .as("live TaskManagers holding vnode %d as of checkpoint %d", vnode, checkpoint)
                    .isEqualTo(expected);
        }
    }

    /**
     * Waits until the subtasks report every vnode restored from a replica, read from the operator
     * metrics through Flink's REST API. A vnode restored on the TaskManager it ran on before the
     * crash finds no replica of its own there (a TaskManager holds only its peers' vnodes), so it
     * must have been fetched from a survivor, unless task-local recovery gave it its local copy;
     * every other vnode restores from the local store. The scheduler decides where the subtasks
     * restart, so the expected number of fetches and local copies is counted from the placements
     * before and after the crash.
     */
    private static void awaitRestoredWithoutDownload(RemoteOperator operator, JsonNode beforeKill)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long restored = 0;
        long fetched = 0;
        long local = 0;
        long restartedInPlace = 0;
        while (System.nanoTime() < deadline) {
            restartedInPlace = vnodesOnTheirFormerTaskManager(beforeKill, operator.view());
            restored = operator.metricSum("rhinoVnodesRestoredFromReplicas");
            fetched = operator.metricSum("rhinoVnodesFetchedFromPeers");
            local = operator.metricSum("rhinoVnodesRestoredFromLocalCopies");
            if (restored + local >= VNODES && fetched + local == restartedInPlace) {
                LOG.info(
                        "{} vnodes restored from replicas after the crash, {} of them fetched from"
                                + " another TaskManager; {} from task-local copies",
                        restored,
                        fetched,
                        local);
                return;
            }
            Thread.sleep(500);
        }
        assertThat(restored + local)
                .as(
                        "vnodes restored from replicas (%s) or task-local copies (%s) after the"
                                + " crash, none downloaded",
                        restored, local)
                .isGreaterThanOrEqualTo(VNODES);
        assertThat(fetched + local)
                .as(
                        "vnodes fetched from another TaskManager's replica (%s) or restored from"
                                + " task-local copies (%s): those restored on the TaskManager they"
                                + " ran on before the crash",
                        fetched, local)
                .isEqualTo(restartedInPlace);
    }

    /**
     * Every surviving TaskManager reports its replication service's metrics in Flink's TaskManager
     * scope: files and bytes it stored, the size of its store.
     */
    private static void awaitReplicaStoreMetrics(ProcessCluster cluster) throws Exception {
        List<String> names =
                List.of(
                        "rhinoReplicaFilesStored",
                        "rhinoReplicaBytesReceived",
                        "rhinoReplicaStoreBytes");
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Map<String, Map<String, Long>> byTaskManager = new HashMap<>();
        while (System.nanoTime() < deadline) {
            byTaskManager.clear();
            for (JsonNode taskManager : cluster.get("/taskmanagers").get("taskmanagers")) {
                String id = taskManager.get("id").asText();
                Map<String, Long> values = new HashMap<>();
                for (JsonNode metric :
                        cluster.get(
                                "/taskmanagers/"
                                        + id
                                        + "/metrics?get="
                                        + String.join(",", names))) {
                    values.put(metric.get("id").asText(), metric.get("value").asLong());
                }
                byTaskManager.put(id, values);
            }
            if (byTaskManager.size() == TASK_MANAGERS - 1
                    && byTaskManager.values().stream()
                            .allMatch(
                                    values ->
                                            names.stream()
                                                    .allMatch(
                                                            n -> values.getOrDefault(n, 0L) > 0))) {
                LOG.info("Replication metrics of the surviving TaskManagers: {}", byTaskManager);
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError(
                "Surviving TaskManagers without positive " + names + ": " + byTaskManager);
    }

    /** How many vnodes run on the same TaskManager as before the crash. */
    private static long vnodesOnTheirFormerTaskManager(JsonNode before, JsonNode after) {
        long same = 0;
        for (int vnode = 0; vnode < VNODES; vnode++) {
            String was = before.get("vnodes").get(vnode).get("taskmanager").asText();
            String is = after.get("vnodes").get(vnode).get("taskmanager").asText();
            if (was.equals(is)) {
                same++;
            }
        }
        return same;
    }

    private static boolean holds(Path replicaDirectory, String listing) throws IOException {
        if (!Files.isDirectory(replicaDirectory)) {
            return false;
        }
        // one store per TaskManager that ran there, named after it
        try (Stream<Path> stores = Files.list(replicaDirectory)) {
            return stores.anyMatch(store -> Files.isRegularFile(store.resolve(listing)));
        }
    }

    private Path replicaDirectory(int taskManager) {
        return directory.resolve("replicas-" + taskManager);
    }
}
