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
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rhino.flink.cluster.ProcessCluster;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.state.PathSegment;
import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.replication.store.StoreLock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A campaign of {@code kill -9}s of TaskManager processes at random moments under a Rhino job that
 * replicates every checkpoint to its peers: in steady state, in the middle of a handover (the
 * TaskManager of one of its origins or targets; every other handover a relay, where one subtask
 * receives a vnode and passes one of its own on), in the middle of a checkpoint's replication, and
 * in the middle of the restore that follows another kill. Every killed TaskManager comes back on
 * its address and replica disk. After each job of the campaign, its committed output must equal
 * plain Flink's (exactly-once across every crash), and once its replicas' retention ended, no live
 * TaskManager's store may hold a file of it or a partial file.
 *
 * <p>Every round of four kills takes each of the four moments once, in a random order. The default
 * build runs a smoke of one round ({@value #SMOKE_KILLS} kills or more: a kill mid-restore kills
 * two) with a fixed seed; {@code -Plifecycle} runs {@code -Drhino.kill-campaign.kills} (100 there)
 * with a new seed, printed for {@code -Drhino.test.seed=S} to replay the sequence of moments and
 * victims; {@code -Drhino.kill-campaign.moments=MID_HANDOVER} makes every kill land at one moment.
 */
class TaskManagerKillCampaignITCase {

    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerKillCampaignITCase.class);

    private static final String NAME = "counts";
    private static final int TASK_MANAGERS = 3;
    private static final int PARALLELISM = 3;
    private static final int VNODES = 12;
    private static final int KEYS = 2_000;
    private static final double EVENTS_PER_SECOND = 3_000;
    private static final int SMOKE_KILLS = 5;
    private static final long SMOKE_SEED = 20261201L;
    private static final Duration RETENTION = Duration.ofSeconds(2);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** When a kill lands. */
    enum Moment {
        STEADY,
        MID_HANDOVER,
        MID_REPLICATION,
        MID_RESTORE
    }

    @TempDir Path directory;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    @Timeout(value = 6, unit = TimeUnit.HOURS)
    void everyJobOfTheCampaignIsExactlyOnceAndLeavesNoReplicaBehind() throws Exception {
        int kills = Integer.getInteger("rhino.kill-campaign.kills", SMOKE_KILLS);
        int killsPerJob = Integer.getInteger("rhino.kill-campaign.kills-per-job", 5);
        long seed = seed();
        LOG.info(
                "TaskManager kill campaign: {} kills, up to {} per job, seed {}"
                        + " (-Drhino.test.seed={} replays it)",
                kills,
                killsPerJob,
                seed,
                seed);
        Random random = new Random(seed);
        Map<Moment, Integer> killsByMoment = new EnumMap<>(Moment.class);
        List<String> history = new ArrayList<>();
        Deque<Moment> upcoming = new ArrayDeque<>();
        Map<String, Integer> moveOutcomes = new TreeMap<>();
        int done = 0;
        int jobs = 0;
        try (ProcessCluster cluster =
                ProcessCluster.start(
                        directory.resolve("cluster"),
                        TASK_MANAGERS,
                        FileCountsJob.oneSubtaskPerTaskManager(),
                        (index, config) ->
                                config.set(
                                        RhinoOptions.REPLICATION_DIR,
                                        replicaDisk(index).toString()))) {
            while (done < kills) {
                int planned = Math.min(killsPerJob, kills - done);
                // long enough for the planned kills, each of which rewinds the job to a checkpoint
                FileCountsJob job =
                        new FileCountsJob(
                                NAME,
                                PARALLELISM,
                                VNODES,
                                (long) (EVENTS_PER_SECOND * (10 + 10L * planned)),
                                KEYS,
                                EVENTS_PER_SECOND);
                int restPort = ProcessCluster.freePort();
                Path output = directory.resolve("output-" + jobs);
                JobClient client =
                        job.submit(cluster, jobConfig(restPort, jobs), output, "kills-" + jobs);
                String jobId = client.getJobID().toString();
                RemoteOperator operator =
                        new RemoteOperator(cluster, restPort, jobId, NAME, VNODES);
                operator.awaitRunning(-1, Duration.ofSeconds(180));
                if (jobs == 0) {
                    awaitReplicasOf(jobId);
                }
                int killedInJob = 0;
                while (killedInJob < planned && !cluster.jobStatus(jobId).equals("FINISHED")) {
                    if (upcoming.isEmpty()) {
                        // every moment once per round, in a random order
                        List<Moment> round = new ArrayList<>(moments());
                        Collections.shuffle(round, random);
                        upcoming.addAll(round);
                    }
                    Moment moment = upcoming.poll();
                    long restartsBefore = restarts(cluster, jobId);
                    List<String> moves = new ArrayList<>();
                    List<Integer> victims = killAt(moment, cluster, operator, jobId, random, moves);
                    // the JobManager may not have noticed the loss yet: the job still runs
                    awaitRestartAfter(cluster, jobId, restartsBefore);
                    for (int victim : victims) {
                        if (!cluster.isAlive(victim)) {
                            cluster.restart(victim);
                        }
                    }
                    cluster.awaitTaskManagers(TASK_MANAGERS, Duration.ofSeconds(180));
                    if (!cluster.jobStatus(jobId).equals("FINISHED")) {
                        operator.awaitRunning(-1, Duration.ofSeconds(300));
                    }
                    for (String move : moves) {
                        // a move cut by a crash ends (failed, or run after the restore)
                        String outcome =
                                operator.rhino()
                                        .awaitEnd(
                                                operator.path() + "/handovers/" + move,
                                                Duration.ofSeconds(120))
                                        .at("/status/id")
                                        .asText();
                        moveOutcomes.merge(outcome, 1, Integer::sum);
                    }
                    killsByMoment.merge(moment, victims.size(), Integer::sum);
                    history.add("job " + jobs + ": " + moment + " killed " + victims);
                    killedInJob += victims.size();
                }
                FileCountsJob.releaseInput(output);
                client.getJobExecutionResult().get(20, TimeUnit.MINUTES);
                assertThat(Multisets.counts(RemoteOperator.committedLines(output)))
                        .as(
                                "job %d's committed output after kills %s vs plain Flink (seed %d)",
                                jobs, history, seed)
                        .isEqualTo(Multisets.counts(job.plainFlinkLines()));
                assertNoReplicaLeftOf(jobId, seed);
                LOG.info("Job {} of the campaign exactly-once after {} kills", jobs, killedInJob);
                if (killedInJob == 0) {
                    throw new AssertionError(
                            "Job " + jobs + " finished before any kill: the campaign is stuck");
                }
                done += killedInJob;
                jobs++;
            }
        }
        LOG.info(
                "TaskManager kill campaign passed: seed {}, {} kills in {} jobs, by moment {};"
                        + " moves cut by a kill ended {}; history {}",
                seed,
                done,
                jobs,
                killsByMoment,
                moveOutcomes,
                history);
    }

    /**
     * Kills one or two TaskManagers at {@code moment}.
     *
     * @return the indexes of the TaskManagers killed; those not restarted yet are restarted next
     */
    private List<Integer> killAt(
            Moment moment,
            ProcessCluster cluster,
            RemoteOperator operator,
            String jobId,
            Random random,
            List<String> moves)
            throws Exception {
        switch (moment) {
            case STEADY -> {
                Thread.sleep(random.nextInt(3_000));
                return List.of(kill(cluster, random.nextInt(TASK_MANAGERS)));
            }
            case MID_HANDOVER -> {
                String move = "kill-campaign-" + UUID.randomUUID();
                int[] ends = startCrossTaskManagerMove(operator, random, move);
                moves.add(move);
                Thread.sleep(random.nextInt(150));
                return List.of(kill(cluster, ends[random.nextInt(ends.length)]));
            }
            case MID_REPLICATION -> {
                triggerCheckpoint(cluster, jobId);
                Thread.sleep(50 + random.nextInt(750));
                return List.of(kill(cluster, random.nextInt(TASK_MANAGERS)));
            }
            case MID_RESTORE -> {
                long restartsBefore = restarts(cluster, jobId);
                int first = kill(cluster, ownerOfSomeVnode(operator, random));
                cluster.restart(first);
                awaitRestoring(cluster, jobId, restartsBefore);
                int second = (first + 1 + random.nextInt(TASK_MANAGERS - 1)) % TASK_MANAGERS;
                return List.of(first, kill(cluster, second));
            }
            default -> throw new IllegalStateException(moment.toString());
        }
    }

    private static int kill(ProcessCluster cluster, int index) throws InterruptedException {
        cluster.kill(index);
        return index;
    }

    /**
     * Asks over REST for a move of a random vnode to a subtask on another TaskManager, or (every
     * other time) for a relay as the rescale policy plans them: that move and, in the same
     * handover, one of the target subtask's own vnodes on to a subtask on a third TaskManager or
     * back to the first move's origin (the target subtask is then origin and target at once).
     *
     * @return the TaskManager indexes of every origin and target of the handover
     */
    private static int[] startCrossTaskManagerMove(
            RemoteOperator operator, Random random, String requestId) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        boolean relay = random.nextBoolean();
        while (true) {
            // a late failover of the previous kill refuses with 503 and "retry once the job
            // runs": the client contract is to wait for the job and ask again
            JsonNode view = operator.awaitRunning(-1, Duration.ofSeconds(120));
            MoveRequest move = postCrossTaskManagerMove(operator, view, random, requestId, relay);
            RestCalls.Reply reply = move.reply();
            if (reply.status() == 503 && System.nanoTime() < deadline) {
                LOG.info(
                        "Move {} refused during a failover, retrying: {}", requestId, reply.text());
                continue;
            }
            assertThat(reply.status()).as(reply.text()).isEqualTo(202);
            LOG.info("Move {} asked: {}", requestId, move.body());
            return move.taskManagers().stream().mapToInt(Integer::intValue).toArray();
        }
    }

    /** A handover asked for over REST, and the TaskManagers of its origins and targets. */
    private record MoveRequest(RestCalls.Reply reply, String body, List<Integer> taskManagers) {}

    /**
     * One vnode's move: the vnode, its owner's TaskManager, the target subtask and its TaskManager.
     */
    private record Move(int vnode, int fromTaskManager, int to, int toTaskManager) {}

    private static MoveRequest postCrossTaskManagerMove(
            RemoteOperator operator, JsonNode view, Random random, String requestId, boolean relay)
            throws Exception {
        int vnode = random.nextInt(VNODES);
        Move first = moveToAnotherTaskManager(operator, view, random, vnode);
        List<Move> moves = new ArrayList<>(List.of(first));
        if (relay) {
            List<Integer> ownVnodes = new ArrayList<>();
            for (int v = 0; v < VNODES; v++) {
                if (view.at("/vnodes/" + v + "/owner").asInt() == first.to()) {
                    ownVnodes.add(v);
                }
            }
            if (!ownVnodes.isEmpty()) {
                int passedOn = ownVnodes.get(random.nextInt(ownVnodes.size()));
                // to a third TaskManager or back to the first move's origin
                moves.add(moveToAnotherTaskManager(operator, view, random, passedOn));
            }
        }
        ObjectNode body = JSON.createObjectNode().put("request-id", requestId);
        ArrayNode movesJson = body.putArray("moves");
        List<Integer> taskManagers = new ArrayList<>();
        for (Move move : moves) {
            movesJson.addObject().put("vnode", move.vnode()).put("to", move.to());
            taskManagers.add(move.fromTaskManager());
            taskManagers.add(move.toTaskManager());
        }
        String json = body.toString();
        RestCalls.Reply reply = operator.rhino().post(operator.path() + "/handovers", json);
        return new MoveRequest(reply, json, taskManagers.stream().distinct().toList());
    }

    /** {@code vnode}'s move to a random subtask on another TaskManager than its owner's. */
    private static Move moveToAnotherTaskManager(
            RemoteOperator operator, JsonNode view, Random random, int vnode) throws Exception {
        int origin = operator.taskManagerOf(view.at("/vnodes/" + vnode + "/taskmanager").asText());
        List<int[]> targets = new ArrayList<>();
        for (JsonNode owned : view.get("vnodes")) {
            int taskManager = operator.taskManagerOf(owned.get("taskmanager").asText());
            if (taskManager != origin) {
                targets.add(new int[] {owned.get("owner").asInt(), taskManager});
            }
        }
        assertThat(targets)
                .as("subtasks on other TaskManagers than vnode %d's", vnode)
                .isNotEmpty();
        int[] target = targets.get(random.nextInt(targets.size()));
        return new Move(vnode, origin, target[0], target[1]);
    }

    /** Triggers a checkpoint over Flink's REST API without waiting for it. */
    private void triggerCheckpoint(ProcessCluster cluster, String jobId) throws Exception {
        HttpResponse<String> reply =
                http.send(
                        HttpRequest.newBuilder(
                                        URI.create(
                                                cluster.restAddress()
                                                        + "/jobs/"
                                                        + jobId
                                                        + "/checkpoints"))
                                .header("Content-Type", "application/json")
                                .timeout(Duration.ofSeconds(10))
                                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(reply.statusCode()).as(reply.body()).isEqualTo(202);
    }

    /**
     * The sum of the attempt numbers of the job's subtasks: it grows with every restart, of a
     * region as of the whole job (whose status stays RUNNING through a region failover).
     */
    private static long restarts(ProcessCluster cluster, String jobId) throws Exception {
        long attempts = 0;
        for (JsonNode vertex : cluster.get("/jobs/" + jobId).path("vertices")) {
            String path = "/jobs/" + jobId + "/vertices/" + vertex.get("id").asText();
            for (JsonNode subtask : cluster.get(path).path("subtasks")) {
                attempts += subtask.path("attempt").asLong();
            }
        }
        return attempts;
    }

    /**
     * Waits until the job restarted more often than {@code before}, or finished. A victim that ran
     * none of the job's tasks causes no restart: after twice the heartbeat timeout the job is taken
     * to have kept running.
     */
    private static void awaitRestartAfter(ProcessCluster cluster, String jobId, long before)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(12).toNanos();
        while (System.nanoTime() < deadline) {
            if (restarts(cluster, jobId) > before || cluster.jobStatus(jobId).equals("FINISHED")) {
                return;
            }
            Thread.sleep(100);
        }
        LOG.info("Job {} did not restart after the kill: no task of it ran there", jobId);
    }

    /**
     * Waits until the job restarted after a kill and some task of it is deploying or initializing
     * (restoring its state), or runs again (the restore was too quick to catch).
     */
    private static void awaitRestoring(ProcessCluster cluster, String jobId, long restartsBefore)
            throws Exception {
        awaitRestartAfter(cluster, jobId, restartsBefore);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode job = cluster.get("/jobs/" + jobId);
            String state = job.path("state").asText();
            int restoring = 0;
            int running = 0;
            for (JsonNode vertex : job.path("vertices")) {
                restoring += vertex.at("/tasks/DEPLOYING").asInt();
                restoring += vertex.at("/tasks/INITIALIZING").asInt();
                running += vertex.at("/tasks/RUNNING").asInt();
            }
            if (state.equals("FINISHED") || (state.equals("RUNNING") && restoring + running > 0)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("Job " + jobId + " did not restart after a TaskManager kill");
    }

    /** The TaskManager of a random vnode's owner. */
    private static int ownerOfSomeVnode(RemoteOperator operator, Random random) throws Exception {
        JsonNode view = operator.view();
        return operator.taskManagerOf(
                view.at("/vnodes/" + random.nextInt(VNODES) + "/taskmanager").asText());
    }

    /**
     * After the job's replica retention ended, no store of a live TaskManager holds a file of it or
     * a partial file. Stores of killed TaskManagers are removed by the next replication service
     * started beside them, so they are not checked here.
     */
    private void assertNoReplicaLeftOf(String jobId, long seed) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<Path> left;
        do {
            Thread.sleep(RETENTION.toMillis());
            left = liveReplicaFilesOf(jobId);
            for (int index = 0; index < TASK_MANAGERS; index++) {
                for (Path store : stores(replicaDisk(index))) {
                    if (!isLive(store)) {
                        continue; // a killed TaskManager's, removed whole by its successor
                    }
                    try (Stream<Path> files = Files.walk(store)) {
                        files.filter(Files::isRegularFile)
                                .filter(f -> f.getFileName().toString().contains(".part-"))
                                .forEach(left::add);
                    }
                }
            }
        } while (!left.isEmpty() && System.nanoTime() < deadline);
        assertThat(left)
                .as(
                        "replica files of finished job %s, or partial files, left in live stores"
                                + " (seed %d)",
                        jobId, seed)
                .isEmpty();
    }

    /**
     * Waits until a live store holds replica files of the job: the leftover check looks where
     * replicas really are.
     */
    private void awaitReplicasOf(String jobId) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (!liveReplicaFilesOf(jobId).isEmpty()) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("No live replica store holds files of job " + jobId);
    }

    /** The files of the job in the stores of live TaskManagers. */
    private List<Path> liveReplicaFilesOf(String jobId) throws IOException {
        String jobSegment = PathSegment.of(jobId);
        List<Path> found = new ArrayList<>();
        for (int index = 0; index < TASK_MANAGERS; index++) {
            for (Path store : stores(replicaDisk(index))) {
                if (isLive(store) && Files.exists(store.resolve(jobSegment))) {
                    try (Stream<Path> files = Files.walk(store.resolve(jobSegment))) {
                        files.filter(Files::isRegularFile).forEach(found::add);
                    }
                }
            }
        }
        return found;
    }

    /** Whether a live process holds the store's lock. */
    private static boolean isLive(Path store) throws IOException {
        Path lock = store.resolve(StoreLock.NAME);
        if (!Files.isRegularFile(lock)) {
            return false;
        }
        try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.WRITE)) {
            FileLock held = channel.tryLock();
            if (held == null) {
                return true;
            }
            held.release();
            return false;
        }
    }

    private static List<Path> stores(Path replicaDisk) throws IOException {
        if (!Files.isDirectory(replicaDisk)) {
            return List.of();
        }
        try (Stream<Path> stores = Files.list(replicaDisk)) {
            return stores.filter(Files::isDirectory).sorted().toList();
        }
    }

    private Configuration jobConfig(int restPort, int job) {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(
                config, directory.resolve("checkpoints-" + job), Duration.ofSeconds(2));
        RhinoClusters.withPeerReplication(config, directory.resolve("unused"), null);
        config.set(RhinoOptions.REPLICATION_FACTOR, 2);
        config.set(RhinoOptions.REPLICATION_RETAIN_AFTER_TASKS, RETENTION);
        // a lost TaskManager's slots look free until its heartbeat times out: restarts may fail
        // many times before the restarted TaskManager registers
        RhinoClusters.withRestarts(config, 1_000, Duration.ofSeconds(1));
        config.set(RhinoOptions.REST_PORT, restPort);
        return config;
    }

    /**
     * The moments of a round: all of them, or those {@code -Drhino.kill-campaign.moments} names
     * (e.g. {@code MID_HANDOVER,MID_RESTORE}) to aim a campaign at them.
     */
    private static List<Moment> moments() {
        String names = System.getProperty("rhino.kill-campaign.moments", "");
        if (names.isBlank()) {
            return List.of(Moment.values());
        }
        return Stream.of(names.split(",")).map(String::strip).map(Moment::valueOf).toList();
    }

    private static long seed() {
        String given = System.getProperty("rhino.test.seed", "");
        if (given.isEmpty()) {
            return SMOKE_SEED;
        }
        return given.equals("random") ? System.nanoTime() : Long.parseLong(given);
    }

    private Path replicaDisk(int taskManager) {
        return directory.resolve("replicas-" + taskManager);
    }
}
