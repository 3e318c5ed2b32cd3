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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RescaleAssignment;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.testjobs.CheckpointFiles;
import io.rhino.flink.testjobs.FailOnDemand;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverRejectedException;
import io.rhino.handover.HandoverResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.util.ExceptionUtils;

/**
 * Throws seeded random lifecycle operations at a running Rhino job: handovers, savepoints (native
 * or canonical), task failures at the source or at the sink, cancel + restore from the latest
 * savepoint or retained checkpoint, stop-with-savepoint + resubmit at a random parallelism, and,
 * where the cluster runs the adaptive scheduler, a rescale through Flink's resource requirements
 * (FLIP-291) to a random parallelism, the job restarting in place. Every restore runs at a
 * parallelism its state allows: any for a native savepoint or a retained checkpoint, for a
 * canonical savepoint its own or one that cuts no vnode. A share of the handovers has one of the
 * other operations (not a rescale in place) land while it runs; either may fail, the output may not
 * change. Counts what each operation did and keeps the history, for the failure message.
 */
final class LifecycleDriver {

    /**
     * Submits the job, restored from {@code restorePath} if not null, under a new run id; reading
     * its input as fast as it can if {@code unlimited}, else at the test's rate.
     */
    interface Submitter {
        JobID submit(String runId, String restorePath, boolean unlimited, int parallelism)
                throws Exception;
    }

    /** A savepoint taken, with what its restore depends on. */
    private record Savepoint(String path, SavepointFormatType format, int parallelism) {}

    enum Operation {
        HANDOVER,
        SAVEPOINT,
        FAIL_SOURCE,
        FAIL_SINK,
        CANCEL_AND_RESTORE,
        STOP_AND_RESCALE,
        ADAPTIVE_RESCALE
    }

    /** How often a handover has another operation land while it runs, in percent. */
    private static final int OVERLAPPED_PERCENT = 30;

    /** What may land during a handover: each ends, restarts or stops the tasks it runs in. */
    private static final Operation[] OVERLAPPING = {
        Operation.SAVEPOINT,
        Operation.FAIL_SOURCE,
        Operation.FAIL_SINK,
        Operation.CANCEL_AND_RESTORE,
        Operation.STOP_AND_RESCALE
    };

    private final MiniCluster cluster;
    // Flink's REST API where the adaptive scheduler runs the jobs, else null: no adaptive rescales
    private final RestCalls adaptiveScheduler;
    private final Submitter submitter;
    private final List<String> operators;
    private final Path checkpoints;
    private final Path savepoints;
    private final Random random;
    private final VnodeLayout layout;
    private final int maxParallelism;
    private int parallelism;
    private final List<String> history = new ArrayList<>();
    private final TreeMap<String, Integer> countByOutcome = new TreeMap<>();
    private final List<String> runIds = new ArrayList<>();
    private JobID job;
    private Savepoint latestSavepoint;
    // the names of the vertices built at the job's parallelism, which an adaptive rescale changes
    private List<String> scaledVertices;

    /**
     * @param adaptiveScheduler Flink's REST API if the cluster runs the adaptive scheduler: the
     *     driver then also rescales through resource requirements; null if it does not
     */
    LifecycleDriver(
            MiniCluster cluster,
            RestCalls adaptiveScheduler,
            Submitter submitter,
            List<String> operators,
            Path checkpoints,
            Path savepoints,
            long seed,
            VnodeLayout layout,
            int parallelism,
            int maxParallelism) {
        this.cluster = cluster;
        this.adaptiveScheduler = adaptiveScheduler;
        this.submitter = submitter;
        this.operators = operators;
        this.checkpoints = checkpoints;
        this.savepoints = savepoints;
        this.random = new Random(seed);
        this.layout = layout;
        this.parallelism = parallelism;
        this.maxParallelism = maxParallelism;
    }

    /** Starts the first run. */
    void start() throws Exception {
        job = submitter.submit(nextRunId(), null, false, parallelism);
        awaitReady();
        if (adaptiveScheduler != null) {
            scaledVertices = verticesAt(parallelism);
        }
        if (finished()) {
            history.add("start: " + describeEnd());
        }
    }

    /** How the current run ended: its status, and the failure cause if it failed. */
    String describeEnd() throws Exception {
        JobResult result = cluster.requestJobResult(job).get(60, TimeUnit.SECONDS);
        // the cluster's job status: JobResult's status accessor differs between Flink 2.2 and 2.3
        return "run ended "
                + cluster.getJobStatus(job).get(60, TimeUnit.SECONDS)
                + result.getSerializedThrowable()
                        .map(t -> ": " + ExceptionUtils.stringifyException(t))
                        .orElse("");
    }

    /**
     * Ends the operations: cancels the job and restores its last state into a run that reads the
     * rest of the input without a rate limit, and waits until it finished. Results in event time do
     * not depend on the rate.
     */
    void finishUnlimited() throws Exception {
        if (!finished()) {
            Savepoint restore = cancelAndPickRestore();
            history.add("finish: restored " + restore.path() + " without a rate limit");
            job = submitter.submit(nextRunId(), restore.path(), true, restore.parallelism());
        }
        while (!finished()) {
            Thread.sleep(50);
        }
        history.add("finish: " + describeEnd());
    }

    /** Every run id so far, in order; the job's results are the union of their outputs. */
    List<String> runIds() {
        return runIds;
    }

    List<String> history() {
        return history;
    }

    TreeMap<String, Integer> countByOutcome() {
        return countByOutcome;
    }

    JobID job() {
        return job;
    }

    /** Runs operations until {@code count} ran or the job finished; returns how many ran. */
    int run(int count) throws Exception {
        int ran = 0;
        while (ran < count && !finished()) {
            Operation operation = pick();
            String outcome = perform(operation);
            history.add(ran + " " + operation + ": " + outcome);
            countByOutcome.merge(operation + " " + outcome.split(":")[0], 1, Integer::sum);
            ran++;
            Thread.sleep(random.nextInt(300));
        }
        if (ran < count) {
            history.add("operations stopped: " + describeEnd());
        }
        return ran;
    }

    boolean finished() throws Exception {
        return cluster.getJobStatus(job).get().isGloballyTerminalState();
    }

    private Operation pick() {
        // a die of its own, cast only where the operation exists: the other seeds replay as before
        if (adaptiveScheduler != null && random.nextInt(100) < 25) {
            return Operation.ADAPTIVE_RESCALE;
        }
        int dice = random.nextInt(100);
        if (dice < 55) {
            return Operation.HANDOVER;
        } else if (dice < 70) {
            return Operation.SAVEPOINT;
        } else if (dice < 80) {
            return Operation.FAIL_SOURCE;
        } else if (dice < 90) {
            return Operation.FAIL_SINK;
        } else if (dice < 95) {
            return Operation.CANCEL_AND_RESTORE;
        }
        return Operation.STOP_AND_RESCALE;
    }

    private String perform(Operation operation) throws Exception {
        return switch (operation) {
            case HANDOVER -> handover();
            case SAVEPOINT -> savepoint();
            case FAIL_SOURCE -> fail(currentRunId());
            case FAIL_SINK -> fail(currentRunId() + "-sink");
            case CANCEL_AND_RESTORE -> cancelAndRestore();
            case STOP_AND_RESCALE -> stopAndRescale();
            case ADAPTIVE_RESCALE -> adaptiveRescale();
        };
    }

    private String handover() throws Exception {
        String operator = operators.get(random.nextInt(operators.size()));
        Optional<HandoverManager> manager = RhinoHandovers.find(job, operator);
        if (manager.isEmpty()) {
            return "skipped: no manager";
        }
        if (manager.get().routingTable().parallelism() < 2) {
            return "skipped: one subtask";
        }
        List<VnodeMove> moves =
                new RandomHandovers(job, operators, random.nextLong())
                        .randomMoves(manager.get().routingTable(), 3);
        // a die of its own: some handovers get another operation landing while they run
        Operation overlapping =
                random.nextInt(100) < OVERLAPPED_PERCENT
                        ? OVERLAPPING[random.nextInt(OVERLAPPING.length)]
                        : null;
        CompletableFuture<HandoverResult> running = manager.get().handover(moves);
        String under = "";
        String during = "";
        if (overlapping != null) {
            Thread.sleep(random.nextInt(40));
            under = " under " + overlapping;
            during = " (" + overlapping + " meanwhile: " + perform(overlapping) + ")";
        }
        try {
            HandoverResult result = running.get(90, TimeUnit.SECONDS);
            return (result.isCompleted() ? "completed" : "failed")
                    + under
                    + ": "
                    + operator
                    + " "
                    + moves
                    + result.failureCause().map(c -> " " + c).orElse("")
                    + during;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof HandoverRejectedException rejected) {
                return "refused" + under + ": " + rejected.getMessage() + during;
            }
            throw e;
        }
    }

    private String savepoint() throws Exception {
        SavepointFormatType format =
                random.nextBoolean() ? SavepointFormatType.NATIVE : SavepointFormatType.CANONICAL;
        try {
            String path =
                    cluster.triggerSavepoint(job, savepoints.toUri().toString(), false, format)
                            .get(90, TimeUnit.SECONDS);
            latestSavepoint = new Savepoint(path, format, parallelism);
            return "taken (" + format + "): " + path;
        } catch (ExecutionException e) {
            // e.g. while tasks restart or finish: Flink declines, the job goes on
            return "declined: " + e.getCause();
        }
    }

    private String fail(String failurePoint) throws Exception {
        int before = FailOnDemand.failures(failurePoint);
        FailOnDemand.arm(failurePoint);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (FailOnDemand.failures(failurePoint) == before && System.nanoTime() < deadline) {
            if (finished()) {
                return "skipped: the job finished";
            }
            Thread.sleep(10);
        }
        if (FailOnDemand.failures(failurePoint) == before) {
            FailOnDemand.disarm(failurePoint);
            return "skipped: no record arrived";
        }
        awaitReady();
        return "recovered: " + failurePoint;
    }

    private String cancelAndRestore() throws Exception {
        if (latestSavepoint == null && latestRetainedCheckpoint(job).isEmpty()) {
            return "skipped: no savepoint or completed checkpoint to restore yet";
        }
        Savepoint restore = cancelAndPickRestore();
        return resubmit(restore, restore.parallelism());
    }

    /**
     * Stops the job with a savepoint of a random format and resubmits it from that savepoint at a
     * random parallelism the savepoint allows.
     */
    private String stopAndRescale() throws Exception {
        SavepointFormatType format =
                random.nextBoolean() ? SavepointFormatType.NATIVE : SavepointFormatType.CANONICAL;
        String path;
        try {
            path =
                    cluster.stopWithSavepoint(job, savepoints.toUri().toString(), false, format)
                            .get(90, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            // e.g. while tasks restart or finish: Flink declines, the job goes on
            return "declined: " + e.getCause();
        }
        while (!finished()) {
            Thread.sleep(20);
        }
        latestSavepoint = new Savepoint(path, format, parallelism);
        List<Integer> allowed = allowedParallelisms(latestSavepoint);
        return resubmit(latestSavepoint, allowed.get(random.nextInt(allowed.size())));
    }

    /**
     * Asks the adaptive scheduler for a random other parallelism of the vertices built at the job's
     * parallelism, as the Kubernetes operator's autoscaler does, and waits until every Rhino
     * operator runs at it. A checkpoint first: the restart restores the latest checkpoint, and one
     * taken in this run is native state, which restores at any parallelism (a canonical savepoint
     * the run started from allows fewer).
     */
    private String adaptiveRescale() throws Exception {
        int to = 1 + random.nextInt(maxParallelism - 1);
        if (to >= parallelism) {
            to++;
        }
        // a restart in progress (the adaptive scheduler refuses checkpoints until it executes)
        if (!awaitRunning()) {
            return "skipped: the job finished";
        }
        try {
            RhinoClusters.checkpoint(cluster, job);
        } catch (ExecutionException e) {
            return "declined: the checkpoint before it: " + e.getCause();
        }
        if (finished()) {
            return "skipped: the job finished";
        }
        String path = "/jobs/" + job + "/resource-requirements";
        RestCalls.Reply current = adaptiveScheduler.get(path);
        if (current.status() != 200) {
            return "declined: GET " + path + ": " + current.text();
        }
        ObjectNode requirements = (ObjectNode) current.json().deepCopy();
        Map<String, String> names = vertexNames();
        int changed = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = requirements.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> vertex = it.next();
            if (scaledVertices.contains(names.get(vertex.getKey()))) {
                var bounds = (ObjectNode) vertex.getValue().get("parallelism");
                bounds.put("lowerBound", 1);
                bounds.put("upperBound", to);
                changed++;
            }
        }
        RestCalls.Reply put = adaptiveScheduler.send("PUT", path, requirements.toString(), null);
        if (put.status() != 200) {
            return "declined: PUT " + path + ": " + put.text();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        for (String operator : operators) {
            while (!runsAt(operator, to)) {
                if (finished()) {
                    return "skipped: the job finished while rescaling to " + to;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(
                            "'" + operator + "' did not run at parallelism " + to + " in 90 s");
                }
                Thread.sleep(20);
            }
        }
        String from = " from " + parallelism;
        parallelism = to;
        return "rescaled in place: parallelism " + to + from + " (" + changed + " vertices)";
    }

    /** Waits until the job runs every task and every Rhino operator is ready; false if it ended. */
    private boolean awaitRunning() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!finished()) {
            boolean ready =
                    cluster.getJobStatus(job).get() == JobStatus.RUNNING
                            && operators.stream()
                                    .allMatch(operator -> RhinoHandovers.isReady(job, operator));
            if (ready) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the job did not run again in 90 s");
            }
            Thread.sleep(20);
        }
        return false;
    }

    private boolean runsAt(String operator, int at) {
        return RhinoHandovers.isReady(job, operator)
                && RhinoHandovers.find(job, operator)
                        .map(manager -> manager.routingTable().parallelism() == at)
                        .orElse(false);
    }

    /** The names of the running job's vertices at {@code at} subtasks. */
    private List<String> verticesAt(int at) throws Exception {
        List<String> names = new ArrayList<>();
        for (var vertex : adaptiveScheduler.get("/jobs/" + job).json().get("vertices")) {
            if (vertex.get("parallelism").asInt() == at) {
                names.add(vertex.get("name").asText());
            }
        }
        return names;
    }

    /** The running job's vertex names by vertex id. */
    private Map<String, String> vertexNames() throws Exception {
        Map<String, String> names = new HashMap<>();
        for (var vertex : adaptiveScheduler.get("/jobs/" + job).json().get("vertices")) {
            names.put(vertex.get("id").asText(), vertex.get("name").asText());
        }
        return names;
    }

    private String resubmit(Savepoint restore, int newParallelism) throws Exception {
        String from = parallelism == newParallelism ? "" : " from " + parallelism;
        parallelism = newParallelism;
        job = submitter.submit(nextRunId(), restore.path(), false, parallelism);
        awaitReady();
        return "restored at parallelism " + parallelism + from + ": " + restore.path();
    }

    /**
     * Cancels the job and picks the latest savepoint or its retained checkpoint, at random, with
     * the parallelism to restore it at: the current one where the state allows it.
     */
    private Savepoint cancelAndPickRestore() throws Exception {
        cluster.cancelJob(job).get(60, TimeUnit.SECONDS);
        while (!finished()) {
            Thread.sleep(20);
        }
        Savepoint restore =
                latestSavepoint != null && random.nextBoolean()
                        ? latestSavepoint
                        : latestRetainedCheckpoint(job).orElse(latestSavepoint);
        if (restore == null) {
            // no state yet: the job starts over; its results equal the first ones
            return new Savepoint(null, SavepointFormatType.NATIVE, parallelism);
        }
        List<Integer> allowed = allowedParallelisms(restore);
        int at =
                allowed.contains(parallelism)
                        ? parallelism
                        : allowed.get(random.nextInt(allowed.size()));
        return new Savepoint(restore.path(), restore.format(), at);
    }

    /**
     * The parallelisms {@code state} restores at: any up to the slots for native state, and for a
     * canonical savepoint its own or one whose key-group ranges cut no vnode.
     */
    private List<Integer> allowedParallelisms(Savepoint state) {
        List<Integer> allowed = new ArrayList<>();
        if (state.format() == SavepointFormatType.CANONICAL) {
            allowed.addAll(RescaleAssignment.unsplitParallelisms(layout, maxParallelism));
            if (!allowed.contains(state.parallelism())) {
                allowed.add(state.parallelism());
            }
        } else {
            for (int p = 1; p <= maxParallelism; p++) {
                allowed.add(p);
            }
        }
        return allowed;
    }

    /** The newest complete checkpoint the cancelled job left: Flink keeps it on cancellation. */
    private Optional<Savepoint> latestRetainedCheckpoint(JobID cancelled) throws Exception {
        return CheckpointFiles.latestCompletedCheckpoint(
                        checkpoints.resolve(cancelled.toHexString()))
                .map(
                        dir ->
                                new Savepoint(
                                        dir.toUri().toString(),
                                        SavepointFormatType.NATIVE,
                                        parallelism));
    }

    private void awaitReady() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        for (String operator : operators) {
            while (!RhinoHandovers.isReady(job, operator)) {
                if (finished() || System.nanoTime() > deadline) {
                    return;
                }
                Thread.sleep(20);
            }
        }
    }

    private String nextRunId() {
        String runId = "lifecycle-" + runIds.size() + "-" + java.util.UUID.randomUUID();
        runIds.add(runId);
        return runId;
    }

    private String currentRunId() {
        return runIds.get(runIds.size() - 1);
    }
}
