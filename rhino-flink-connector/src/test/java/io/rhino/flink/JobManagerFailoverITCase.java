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
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JobManager process dies with {@code kill -9} under a Rhino job replicating its vnodes between
 * three TaskManager processes, with ZooKeeper high availability, while a move between TaskManagers
 * may be in flight; a new JobManager process recovers the job. The new JobManager's handover
 * manager starts from the routing table of the restored checkpoint (not the initial layout, and not
 * the lost move's), its REST API answers on the same port and for the lost JobManager's move (from
 * the request journal), the restarted subtasks restore every vnode from a replica and replicate
 * again, moves work again, and the exactly-once file output equals plain Flink's. With Flink's
 * task-local recovery on, a subtask that the new JobManager places in its old slot restores from
 * its task-local copies instead (Flink offers them per slot allocation); none downloads either way.
 */
class JobManagerFailoverITCase {

    private static final Logger LOG = LoggerFactory.getLogger(JobManagerFailoverITCase.class);

    private static final String NAME = "counts";
    private static final int TASK_MANAGERS = 3;
    private static final int PARALLELISM = 3;
    private static final int VNODES = 12;
    private static final int KEYS = 2_000;
    private static final long EVENTS = 120_000;
    private static final double EVENTS_PER_SECOND = 3_000;
    // enough input to outlast a new JobManager that first runs the job at fewer subtasks (a
    // TaskManager registered late) and rescales at a later checkpoint; released once at the asked
    // parallelism, so it costs no time otherwise
    private static final long RESCALE_EVENTS = 360_000;

    private static final FileCountsJob JOB =
            new FileCountsJob(NAME, PARALLELISM, VNODES, EVENTS, KEYS, EVENTS_PER_SECOND);

    @TempDir Path directory;

    @ParameterizedTest(name = "task-local recovery {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(420)
    void aNewJobManagerRecoversRoutingReplicationAndMovesFromTheLatestCheckpoint(
            boolean localRecovery) throws Exception {
        Configuration common = FileCountsJob.oneSubtaskPerTaskManager();
        if (localRecovery) {
            RhinoClusters.onlyWithAllVariants("task-local recovery");
            common.set(CheckpointingOptions.LOCAL_BACKUP_ENABLED, true);
            common.set(StateRecoveryOptions.LOCAL_RECOVERY, true);
        }
        try (ProcessCluster cluster = startCluster(common)) {
            int restPort = ProcessCluster.freePort();
            Path output = directory.resolve("output");
            String jobId = submit(cluster, restPort, output);
            RemoteOperator operator = new RemoteOperator(cluster, restPort, jobId, NAME, VNODES);
            Random random = new Random(20261125);

            operator.awaitRunning(-1, Duration.ofSeconds(180));
            operator.moveBetweenTaskManagers(random, 3, "before");
            long restorable = cluster.checkpoint(jobId, Duration.ofSeconds(60));
            List<Integer> ownersAtCheckpoint = owners(operator.view());
            // a move that may or may not finish before the JobManager dies: either way the job
            // goes back to the checkpoint, where the move had not happened
            operator.startMove(random, "in-flight");
            long killed = System.nanoTime();
            cluster.killJobManager();
            cluster.restartJobManager();
            JsonNode recovered = operator.awaitRunning(-1, Duration.ofSeconds(180));
            LOG.info(
                    "JobManager killed; Rhino operator running under the new one after {} ms",
                    (System.nanoTime() - killed) / 1_000_000);

            assertThat(
                            cluster.get("/jobs/" + jobId + "/checkpoints")
                                    .at("/latest/restored/id")
                                    .asLong())
                    .as("checkpoint the new JobManager restored")
                    .isEqualTo(restorable);
            assertThat(owners(recovered))
                    .as("vnode owners under the new JobManager vs at the restored checkpoint")
                    .isEqualTo(ownersAtCheckpoint);
            JsonNode inFlight = awaitEnded(operator, operator.path() + "/handovers/in-flight");
            assertThat(inFlight.at("/operation/read-from-request-journal").asBoolean())
                    .as("the lost JobManager's move, from its request journal: %s", inFlight)
                    .isTrue();
            assertThat(inFlight.at("/status/id").asText()).isIn("COMPLETED", "FAILED");

            long afterRecovery = cluster.checkpoint(jobId, Duration.ofSeconds(90));
            awaitReplicated(operator, afterRecovery);
            awaitRestoredWithoutDownload(operator, localRecovery);
            operator.moveBetweenTaskManagers(random, 3, "after");

            FileCountsJob.releaseInput(output);
            FileCountsJob.awaitFinished(cluster, jobId, Duration.ofSeconds(300));
            assertThat(Multisets.counts(RemoteOperator.committedLines(output)))
                    .as(
                            "committed output lines with moves and a JobManager failover vs plain Flink")
                    .isEqualTo(Multisets.counts(JOB.plainFlinkLines()));
        }
    }

    /**
     * The JobManager dies while a restart-based rescale past the deployed parallelism is under way
     * (Rhino asked the adaptive scheduler for more subtasks, Flink has the new requirements). The
     * new JobManager recovers the job at the parallelism Flink persisted with the requirements;
     * every vnode of the new layout restores from a task-local copy of its TaskManager (any slot)
     * or a replica, none from the checkpoint storage, and the output equals plain Flink's. The new
     * JobManager follows the rescale on under its request id (from the request journal) to its end,
     * and reports where each vnode came from. The JobManager dies as the rescale enters {@code
     * phase}: Flink has the requirements and the job runs on (REQUESTED), Flink is stopping the job
     * to restart it (RESTARTING), or the new subtasks restore their vnodes (RESTORING).
     */
    @ParameterizedTest(name = "killed in phase {0}")
    @ValueSource(strings = {"REQUESTED", "RESTARTING", "RESTORING"})
    @Timeout(420)
    void aJobManagerLostDuringARestartRescaleLeavesTheJobAtTheAskedParallelismWithEveryCount(
            String killedIn) throws Exception {
        // Failed once in a full `mvn verify` and once under load: the new JobManager started the
        // job at 2 subtasks (a TaskManager registered late) and the input ended before the
        // rescale to 3 (docs/reliability.md); awaitRunningAt and RESCALE_EVENTS now cover that,
        // and 12 runs since passed, 3 of them beside a 20 GB benchmark. The kill while Flink
        // restarts runs in every build; the two other phases with -Plifecycle.
        if (!killedIn.equals("RESTARTING")) {
            RhinoClusters.onlyWithAllVariants("a JobManager lost in phase " + killedIn);
        }
        Configuration common = FileCountsJob.oneSubtaskPerTaskManager();
        common.addAll(RhinoClusters.adaptiveScheduler());
        common.set(CheckpointingOptions.LOCAL_BACKUP_ENABLED, true);
        common.set(StateRecoveryOptions.LOCAL_RECOVERY, true);
        int before = 2;
        int after = 3;
        FileCountsJob job =
                new FileCountsJob(NAME, before, VNODES, RESCALE_EVENTS, KEYS, EVENTS_PER_SECOND);
        try (ProcessCluster cluster = startCluster(common)) {
            int restPort = ProcessCluster.freePort();
            Path output = directory.resolve("output");
            Configuration config = jobConfig(restPort);
            config.set(RhinoOptions.RESCALE_FLINK_REST_ADDRESS, cluster.restAddress());
            String jobId =
                    job.submit(cluster, config, output, "jm-failover-rescale")
                            .getJobID()
                            .toString();
            RemoteOperator operator = new RemoteOperator(cluster, restPort, jobId, NAME, VNODES);
            operator.awaitRunning(-1, Duration.ofSeconds(180));
            awaitReplicated(operator, cluster.checkpoint(jobId, Duration.ofSeconds(60)));

            RestCalls.Reply accepted =
                    operator.rhino()
                            .post(
                                    operator.path() + "/rescale",
                                    "{\"active-subtasks\": "
                                            + after
                                            + ", \"allow-restart\": true, \"request-id\":"
                                            + " \"grow\"}");
            assertThat(accepted.status()).as(accepted.text()).isEqualTo(202);
            awaitPhase(operator, jobId, "grow", killedIn);
            LOG.info("Killing the JobManager with the rescale in phase {}", killedIn);
            cluster.killJobManager();
            cluster.restartJobManager();
            JsonNode recovered;
            try {
                recovered =
                        awaitRunningAt(operator, after, cluster, jobId, Duration.ofSeconds(180));
            } catch (AssertionError e) {
                throw new AssertionError(
                        e.getMessage()
                                + "\nJob status: "
                                + jobStatusOrWhy(cluster, jobId)
                                + "\nThe new JobManager's log ends:\n"
                                + logEnd(cluster),
                        e);
            }
            assertThat(new java.util.TreeSet<>(owners(recovered)))
                    .as("subtasks owning vnodes under the new JobManager")
                    .hasSize(after);
            JsonNode grown =
                    awaitEnded(operator, "/jobs/" + jobId + "/reconfigurations/grow")
                            .at("/operation/handovers/0/restart");
            assertThat(grown.path("phase").asText())
                    .as(
                            "the rescale the lost JobManager accepted, followed on by the new one: %s",
                            grown)
                    .isEqualTo("RUNNING");
            assertThat(grown.path("to-parallelism").asInt()).isEqualTo(after);
            assertThat(grown.path("reached-parallelism").asInt()).isEqualTo(after);
            assertThat(grown.has("resumed-after-jobmanager-failover-at"))
                    .as(grown.toString())
                    .isTrue();
            assertThat(grown.at("/restored-from/checkpoint-storage").asInt())
                    .as("vnodes the rescale restored from the checkpoint storage: %s", grown)
                    .isZero();
            awaitRestoredWithoutDownload(operator, true);
            awaitReplicated(operator, cluster.checkpoint(jobId, Duration.ofSeconds(90)));

            FileCountsJob.releaseInput(output);
            FileCountsJob.awaitFinished(cluster, jobId, Duration.ofSeconds(300));
            assertThat(Multisets.counts(RemoteOperator.committedLines(output)))
                    .as("committed output lines with a JobManager lost mid-rescale vs plain Flink")
                    .isEqualTo(Multisets.counts(job.plainFlinkLines()));
        }
    }

    /** Polls a reconfiguration's status until it ended; fails if it is unknown or still runs. */
    private static JsonNode awaitEnded(RemoteOperator operator, String statusPath)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            RestCalls.Reply reply = operator.rhino().get(statusPath);
            last = reply.status() + " " + reply.text();
            if (reply.status() == 200
                    && !reply.json().at("/status/id").asText().equals("IN_PROGRESS")) {
                return reply.json();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("Not ended after 90 s: " + statusPath + ": " + last);
    }

    /**
     * Waits until the restart-based rescale {@code requestId} reports {@code phase}, polling every
     * 10 ms; fails if it ended or went past it unseen.
     */
    private static void awaitPhase(
            RemoteOperator operator, String jobId, String requestId, String phase)
            throws Exception {
        List<String> phases = List.of("REQUESTED", "RESTARTING", "RESTORING", "RUNNING");
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            JsonNode status =
                    operator.rhino()
                            .get("/jobs/" + jobId + "/reconfigurations/" + requestId)
                            .json();
            last = status.toString();
            String now = status.at("/operation/handovers/0/restart/phase").asText();
            if (now.equals(phase)) {
                return;
            }
            assertThat(phases.indexOf(now))
                    .as("the rescale went past %s before it was seen: %s", phase, last)
                    .isLessThan(Math.max(0, phases.indexOf(phase)) + 1);
            assertThat(status.at("/status/id").asText()).as(last).isEqualTo("IN_PROGRESS");
            Thread.sleep(10);
        }
        throw new AssertionError("The rescale did not reach phase " + phase + ": " + last);
    }

    /**
     * Waits until the operator runs with its vnodes on {@code subtasks} subtasks. While it runs on
     * fewer (the new JobManager started the job with the TaskManagers registered by then), a
     * checkpoint is asked for every 10 s: the adaptive scheduler rescales at a checkpoint, and this
     * job checkpoints only when asked.
     */
    private static JsonNode awaitRunningAt(
            RemoteOperator operator,
            int subtasks,
            ProcessCluster cluster,
            String jobId,
            Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        long nextCheckpoint = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        JsonNode view = null;
        while (System.nanoTime() < deadline) {
            view =
                    operator.awaitRunning(
                            -1, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            int owning = new java.util.TreeSet<>(owners(view)).size();
            if (owning == subtasks) {
                return view;
            }
            if (System.nanoTime() >= nextCheckpoint) {
                LOG.info(
                        "The operator runs on {} of {} subtasks; asking for a checkpoint",
                        owning,
                        subtasks);
                try {
                    cluster.checkpoint(jobId, Duration.ofSeconds(30));
                } catch (Exception | AssertionError e) {
                    LOG.info("No checkpoint now ({}); the job may be restarting", e.toString());
                }
                nextCheckpoint = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("Operator not running on " + subtasks + " subtasks: " + view);
    }

    private static String jobStatusOrWhy(ProcessCluster cluster, String jobId) {
        try {
            return cluster.jobStatus(jobId)
                    + "; root exception: "
                    + cluster.get("/jobs/" + jobId + "/exceptions")
                            .at("/exceptionHistory/entries/0/exceptionName")
                            .asText("none");
        } catch (Exception e) {
            return "(unknown: " + e + ")";
        }
    }

    /** The last lines of the JobManager's log that say something (no DEBUG). */
    private static String logEnd(ProcessCluster cluster) {
        try {
            List<String> lines =
                    java.nio.file.Files.readAllLines(cluster.jobManagerLog()).stream()
                            .filter(line -> !line.contains(" DEBUG "))
                            .toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
        } catch (java.io.IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** Three TaskManager processes, each with its own replica disk, under ZooKeeper HA. */
    private ProcessCluster startCluster(Configuration common) throws Exception {
        return ProcessCluster.startHighlyAvailable(
                directory.resolve("cluster"),
                TASK_MANAGERS,
                common,
                (index, config) ->
                        config.set(
                                RhinoOptions.REPLICATION_DIR,
                                directory.resolve("replicas-" + index).toString()));
    }

    private Configuration jobConfig(int restPort) {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(
                config, directory.resolve("checkpoints"), RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
        RhinoClusters.withPeerReplication(config, directory.resolve("unused"), "jm-failover-it");
        RhinoClusters.withRestarts(config, 20, Duration.ofSeconds(1));
        config.set(RhinoOptions.REST_PORT, restPort);
        config.set(
                RhinoOptions.REST_REQUEST_JOURNAL_DIR,
                directory.resolve("rhino-requests").toUri().toString());
        return config;
    }

    private String submit(ProcessCluster cluster, int restPort, Path output) throws Exception {
        return JOB.submit(cluster, jobConfig(restPort), output, "jm-failover")
                .getJobID()
                .toString();
    }

    private static List<Integer> owners(JsonNode operator) {
        List<Integer> owners = new ArrayList<>();
        operator.get("vnodes").forEach(vnode -> owners.add(vnode.get("owner").asInt()));
        return owners;
    }

    /** Every subtask reports a replicated checkpoint at {@code checkpoint} or later. */
    private static void awaitReplicated(RemoteOperator operator, long checkpoint) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode replication = null;
        while (System.nanoTime() < deadline) {
            replication = operator.rhino().get(operator.path() + "/replication").json();
            boolean reached = true;
            for (JsonNode subtask : replication.get("subtasks")) {
                reached &= subtask.path("last-replicated-checkpoint").asLong(-1) >= checkpoint;
                reached &= subtask.get("chain").size() == 1;
            }
            if (reached) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError(
                "Not every subtask replicated checkpoint " + checkpoint + ": " + replication);
    }

    /**
     * Every restarted subtask restored its vnodes from replicas or, with task-local recovery, from
     * their task-local copies; none from the storage.
     */
    private static void awaitRestoredWithoutDownload(RemoteOperator operator, boolean localRecovery)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long fromReplicas = 0;
        long fromLocalCopies = 0;
        while (System.nanoTime() < deadline) {
            fromReplicas = operator.metricSum("rhinoVnodesRestoredFromReplicas");
            fromLocalCopies =
                    localRecovery ? operator.metricSum("rhinoVnodesRestoredFromLocalCopies") : 0;
            if (fromReplicas + fromLocalCopies >= VNODES) {
                break;
            }
            Thread.sleep(500);
        }
        LOG.info(
                "After the JobManager failover: {} vnodes restored from replicas, {} from task-local"
                        + " copies",
                fromReplicas,
                fromLocalCopies);
        assertThat(fromReplicas + fromLocalCopies)
                .as(
                        "vnodes restored from replicas (%s) or task-local copies (%s) after the"
                                + " JobManager failover",
                        fromReplicas, fromLocalCopies)
                .isGreaterThanOrEqualTo(VNODES);
    }
}
