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

package io.rhino.flink.reconfiguration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.rhino.flink.state.RestoreSource;
import io.rhino.handover.HandoverResult;
import io.rhino.handover.operation.OperationStep;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rescale past the deployed parallelism, once Flink's adaptive scheduler was asked for it: it
 * asks Flink for a checkpoint at once and follows the job through the restart Flink performs (after
 * a checkpoint, its rescale interval and with free slots) until the operator runs at the asked
 * parallelism, and reports the phases and where each vnode's state came from.
 *
 * <p>It watches the process's {@link RhinoDirectory}: the restart closes the operator's
 * coordinators and starts new ones, so the operator seen there is another object once Flink
 * restarted the job. A restart that comes up at another parallelism (fewer free slots, or a
 * failover in between) is followed further, until the timeout.
 */
final class RestartRescale implements OperationStep.StepReport {

    private static final Logger LOG = LoggerFactory.getLogger(RestartRescale.class);
    private static final long POLL_MILLIS = 50;
    // how often the job's status is read from Flink while no operator of it runs
    private static final long JOB_STATUS_EVERY_MILLIS = 2_000;
    // how often the result of the checkpoint Rhino asked for is read until Flink has it
    private static final long TRIGGER_READ_EVERY_MILLIS = 500;
    // how long after the rescale ended the asked-for checkpoint's result is still read: a restart
    // aborts a checkpoint still running, so Flink has its result moments after the job runs again
    private static final long TRIGGER_READ_AFTER_END_MILLIS = 30_000;

    /** The phases of a restart-based rescale, in order. */
    enum Phase {
        /** Flink has the new requirements; the job runs on until Flink restarts it. */
        REQUESTED,
        /** Flink stopped the operator's subtasks to restart the job. */
        RESTARTING,
        /** The operator's new coordinators run; its subtasks restore their vnodes. */
        RESTORING,
        /** Every subtask runs at the asked parallelism. */
        RUNNING,
        FAILED
    }

    private final RhinoDirectory directory;
    private final FlinkRest flink;
    private final String jobId;
    private final String operatorName;
    private final int fromParallelism;
    private final int toParallelism;
    private final long requestedAtMillis;
    private final long deadlineMillis;
    private final LongSupplier clock;
    private final CompletableFuture<HandoverResult> result = new CompletableFuture<>();

    // guarded by this
    private Phase phase = Phase.REQUESTED;
    private OperatorView watched; // null while resumed and no operator was seen yet
    private int watchedGates;
    private int reachedParallelism;
    private long restartSeenAtMillis = -1;
    private long runningAtMillis = -1;
    private long lastJobStatusMillis;
    private OptionalLong restoredCheckpoint = OptionalLong.empty();
    private long checkpointCompletedAtMillis = -1;
    private Map<Integer, RestoreSource> restoreSources = Map.of();
    private String failure;
    private String checkpointTrigger;
    // Flink's id of the asked-for checkpoint, until its result was read (see collectTrigger)
    private String pendingTriggerId;
    private long lastTriggerReadMillis;
    private long endedAtMillis = -1;
    // when this JobManager took the rescale over from an earlier one, if it did
    private long resumedAtMillis = -1;
    private volatile Runnable phaseChanged = () -> {};

    RestartRescale(
            RhinoDirectory directory,
            FlinkRest flink,
            OperatorView before,
            int toParallelism,
            long timeoutMillis,
            LongSupplier clock) {
        this(
                directory,
                flink,
                before.jobId(),
                before.name(),
                before.parallelism(),
                toParallelism,
                clock.getAsLong(),
                timeoutMillis,
                clock);
        this.watched = before;
        this.watchedGates = before.taskManagerBySubtask().size();
    }

    private RestartRescale(
            RhinoDirectory directory,
            FlinkRest flink,
            String jobId,
            String operatorName,
            int fromParallelism,
            int toParallelism,
            long requestedAtMillis,
            long timeoutMillis,
            LongSupplier clock) {
        this.directory = directory;
        this.flink = flink;
        this.jobId = jobId;
        this.operatorName = operatorName;
        this.fromParallelism = fromParallelism;
        this.toParallelism = toParallelism;
        this.clock = clock;
        this.requestedAtMillis = requestedAtMillis;
        this.deadlineMillis = requestedAtMillis + timeoutMillis;
        this.reachedParallelism = fromParallelism;
        this.lastJobStatusMillis = clock.getAsLong();
    }

    /**
     * Follows on a rescale an earlier JobManager of the job accepted, as recorded in {@code
     * recorded} (its report), to its end. A JobManager failover restarts the job, and Flink keeps
     * the raised requirements with the job, so the rescale goes on from {@link Phase#RESTARTING}:
     * it ends once the operator runs at the asked parallelism. Nothing is asked of Flink again.
     *
     * @throws IllegalArgumentException if {@code recorded} lacks the parallelisms or the request
     *     time
     */
    static RestartRescale resumed(
            RhinoDirectory directory,
            FlinkRest flink,
            String jobId,
            String operatorName,
            JsonNode recorded,
            long timeoutMillis,
            LongSupplier clock) {
        for (String field : List.of("from-parallelism", "to-parallelism", "requested-at")) {
            if (!recorded.path(field).canConvertToLong()) {
                throw new IllegalArgumentException("the record lacks '" + field + "'");
            }
        }
        RestartRescale rescale =
                new RestartRescale(
                        directory,
                        flink,
                        jobId,
                        operatorName,
                        recorded.get("from-parallelism").asInt(),
                        recorded.get("to-parallelism").asInt(),
                        recorded.get("requested-at").asLong(),
                        timeoutMillis,
                        clock);
        synchronized (rescale) {
            long now = clock.getAsLong();
            rescale.phase = Phase.RESTARTING;
            rescale.resumedAtMillis = now;
            rescale.restartSeenAtMillis = recorded.path("restart-began-at").asLong(now);
            rescale.checkpointTrigger = recorded.path("checkpoint-trigger").asText(null);
        }
        return rescale;
    }

    /**
     * Runs {@code listener} after each change of phase before the end (e.g. to record the restart's
     * start); on the polling thread, so it must not block.
     */
    void onPhaseChange(Runnable listener) {
        this.phaseChanged = listener;
    }

    /** Completes with null once the operator runs at the asked parallelism. */
    CompletableFuture<HandoverResult> result() {
        return result;
    }

    /**
     * Hands Flink the raised requirements, then polls until the rescale ended, on a thread of its
     * own that ends with it, or once Flink's result of the checkpoint it asked for was read (at
     * most {@code TRIGGER_READ_AFTER_END_MILLIS} later). A refusal of the requirements fails the
     * rescale with Flink's reason.
     */
    void start(JsonNode requirements) {
        ScheduledExecutorService timer = newTimer();
        timer.execute(
                () -> {
                    try {
                        flink.put(RestartRequirements.path(jobId), requirements);
                    } catch (FlinkRest.FlinkRestException e) {
                        fail(
                                "Flink refused the parallelism "
                                        + toParallelism
                                        + ": "
                                        + e.getMessage());
                        timer.shutdown();
                        return;
                    }
                    LOG.info(
                            "Rescale of Rhino operator '{}' of job {} from {} to {}: Flink's"
                                    + " adaptive scheduler has the new upper bound",
                            operatorName,
                            jobId,
                            fromParallelism,
                            toParallelism);
                    triggerCheckpoint();
                    timer.scheduleWithFixedDelay(
                            () -> pollUntilDone(timer), 0, POLL_MILLIS, TimeUnit.MILLISECONDS);
                });
    }

    /**
     * Polls until the rescale ended, on a thread of its own that ends with it (see {@link
     * #resumed}).
     */
    void resume() {
        ScheduledExecutorService timer = newTimer();
        timer.scheduleWithFixedDelay(
                () -> pollUntilDone(timer), 0, POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    private ScheduledExecutorService newTimer() {
        return Executors.newSingleThreadScheduledExecutor(
                runnable -> {
                    Thread thread =
                            new Thread(
                                    runnable,
                                    "rhino-restart-rescale-" + operatorName + "-" + jobId);
                    thread.setDaemon(true);
                    return thread;
                });
    }

    /**
     * Asks Flink for a checkpoint now. The adaptive scheduler rescales once a checkpoint completes
     * after the new requirements (FLIP-461), so without one the restart waits for the next periodic
     * checkpoint: up to a whole interval, a minute at the intervals large state runs with. A
     * refusal (checkpointing off, a checkpoint already running, an older Flink) only costs that
     * wait; a rescale Flink holds back after a recent one (its cool-down) waits for a later
     * checkpoint either way.
     */
    private void triggerCheckpoint() {
        String outcome;
        String triggerId = null;
        try {
            JsonNode accepted =
                    flink.post(
                            "/jobs/" + jobId + "/checkpoints",
                            JsonNodeFactory.instance.objectNode());
            triggerId = accepted.path("request-id").asText(null);
            outcome = "triggered (" + (triggerId == null ? "?" : triggerId) + ")";
        } catch (FlinkRest.FlinkRestException e) {
            outcome = "not triggered: " + e.getMessage();
        }
        LOG.info(
                "Rescale of Rhino operator '{}' of job {} to {}: checkpoint {}",
                operatorName,
                jobId,
                toParallelism,
                outcome);
        synchronized (this) {
            checkpointTrigger = outcome;
            pendingTriggerId = triggerId;
        }
    }

    /**
     * Reads the asked-for checkpoint's result once Flink has it. Flink's REST server keeps an
     * asynchronous operation's result until a client read it, and its shutdown waits for that (up
     * to {@code rest.async.store-duration}, 5 minutes): a result never read held the JobManager's
     * shutdown that long. Every {@code TRIGGER_READ_EVERY_MILLIS}, or at once with {@code force}.
     */
    private void collectTrigger(long now, boolean force) {
        if (pendingTriggerId == null
                || (!force && now - lastTriggerReadMillis < TRIGGER_READ_EVERY_MILLIS)) {
            return;
        }
        lastTriggerReadMillis = now;
        try {
            JsonNode status = flink.get("/jobs/" + jobId + "/checkpoints/" + pendingTriggerId);
            if (!status.at("/status/id").asText("").equals("COMPLETED")) {
                return;
            }
            JsonNode operation = status.path("operation");
            checkpointTrigger =
                    operation.has("checkpointId")
                            ? "completed (checkpoint "
                                    + operation.get("checkpointId").asLong()
                                    + ")"
                            : "failed: "
                                    + operation
                                            .path("failure-cause")
                                            .path("stack-trace")
                                            .asText("")
                                            .lines()
                                            .findFirst()
                                            .orElse("?");
            pendingTriggerId = null;
        } catch (FlinkRest.FlinkRestException e) {
            if (e.status() == 404) {
                pendingTriggerId = null; // Flink no longer keeps it: nothing holds its shutdown
            }
            LOG.debug("The checkpoint Rhino asked for is not read from Flink: {}", e.getMessage());
        }
    }

    /** Polls until the rescale ended and the asked-for checkpoint's result was read. */
    private void pollUntilDone(ScheduledExecutorService timer) {
        try {
            poll();
        } catch (RuntimeException e) {
            fail("the watch of the restart failed: " + e);
        }
        if (nothingLeftToRead()) {
            timer.shutdown();
        }
    }

    private synchronized boolean nothingLeftToRead() {
        return result.isDone()
                && (pendingTriggerId == null
                        || clock.getAsLong() - endedAtMillis >= TRIGGER_READ_AFTER_END_MILLIS);
    }

    /** One step of the state machine; package-private for tests that drive the clock. */
    synchronized void poll() {
        Phase before = phase;
        try {
            step();
        } finally {
            if (phase != before && !result.isDone()) {
                phaseChanged.run();
            }
        }
    }

    private void step() {
        long now = clock.getAsLong();
        collectTrigger(now, false);
        if (result.isDone()) {
            return;
        }
        Optional<OperatorView> current = directory.operator(jobId, operatorName);
        switch (phase) {
            case REQUESTED -> {
                if (current.isEmpty()
                        || current.get() != watched
                        || current.get().taskManagerBySubtask().size() < watchedGates) {
                    phase = Phase.RESTARTING;
                    restartSeenAtMillis = now;
                    LOG.info(
                            "Rescale of Rhino operator '{}' of job {} to {}: Flink restarts the"
                                    + " job",
                            operatorName,
                            jobId,
                            toParallelism);
                }
            }
            case RESTARTING -> {
                if (current.isPresent() && current.get() != watched) {
                    phase = Phase.RESTORING;
                    watched = current.get();
                    if (isRunning(watched)) {
                        ranAt(watched, now);
                    }
                }
            }
            case RESTORING -> {
                if (current.isPresent() && current.get() != watched) {
                    watched = current.get(); // restarted once more
                }
                if (current.isPresent() && isRunning(current.get())) {
                    ranAt(current.get(), now);
                }
            }
            default -> {}
        }
        if (result.isDone()) {
            return;
        }
        if (current.isEmpty() && now - lastJobStatusMillis >= JOB_STATUS_EVERY_MILLIS) {
            lastJobStatusMillis = now;
            failIfJobEnded();
        }
        if (!result.isDone() && now >= deadlineMillis) {
            fail(
                    "the operator does not run at parallelism "
                            + toParallelism
                            + " "
                            + (now - requestedAtMillis) / 1000
                            + " s after the request (rhino.rescale.restart-timeout); it "
                            + (phase == Phase.REQUESTED
                                    ? "still runs at " + reachedParallelism
                                    : "is " + phase.name().toLowerCase(Locale.ROOT))
                            + ". Flink's adaptive scheduler restarts the job only after a"
                            + " checkpoint, its rescale interval and with "
                            + toParallelism
                            + " free slots; the upper bound stays raised, so it may still rescale"
                            + " later");
        }
    }

    private static boolean isRunning(OperatorView operator) {
        return operator.manager().map(m -> m.suspension().isEmpty()).orElse(false);
    }

    private void ranAt(OperatorView operator, long now) {
        reachedParallelism = operator.parallelism();
        if (reachedParallelism != toParallelism) {
            // up at another parallelism: Flink may still rescale once more slots are free
            LOG.info(
                    "Rhino operator '{}' of job {} restarted at parallelism {}, not {}; waiting"
                            + " for Flink to rescale it further",
                    operatorName,
                    jobId,
                    reachedParallelism,
                    toParallelism);
            phase = Phase.REQUESTED;
            watched = operator;
            watchedGates = operator.taskManagerBySubtask().size();
            return;
        }
        phase = Phase.RUNNING;
        runningAtMillis = now;
        endedAtMillis = now;
        collectTrigger(now, true); // the restart followed a completed checkpoint: this one, usually
        restoreSources = operator.restoreSourceByVnode();
        restoredCheckpoint = operator.restoredCheckpointId();
        restoredCheckpoint.ifPresent(this::readCheckpointCompletion);
        LOG.info(
                "Rhino operator '{}' of job {} runs at parallelism {} after a restart: {} ms of"
                        + " downtime, vnodes restored from {}",
                operatorName,
                jobId,
                toParallelism,
                runningAtMillis - restartSeenAtMillis,
                countsBySource());
        result.complete(null);
    }

    private void readCheckpointCompletion(long checkpointId) {
        try {
            JsonNode details = flink.get("/jobs/" + jobId + "/checkpoints/details/" + checkpointId);
            JsonNode acked = details.get("latest_ack_timestamp");
            if (acked != null && acked.canConvertToLong()) {
                checkpointCompletedAtMillis = acked.asLong();
            }
        } catch (FlinkRest.FlinkRestException e) {
            LOG.debug("Checkpoint {} of job {} not read from Flink: {}", checkpointId, jobId, e);
        }
    }

    private void failIfJobEnded() {
        try {
            String state = flink.get("/jobs/" + jobId).path("state").asText("");
            if (state.equals("CANCELED") || state.equals("FAILED") || state.equals("FINISHED")) {
                fail("the job ended (" + state + ") before it ran at " + toParallelism);
            }
        } catch (FlinkRest.FlinkRestException e) {
            if (e.status() == 404) {
                fail("Flink no longer knows the job: " + e.getMessage());
            }
        }
    }

    private void fail(String reason) {
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            failure = reason;
            phase = Phase.FAILED;
            endedAtMillis = clock.getAsLong();
            collectTrigger(endedAtMillis, true);
        }
        LOG.warn("Rescale of Rhino operator '{}' of job {}: {}", operatorName, jobId, reason);
        result.completeExceptionally(new IllegalStateException(reason));
    }

    private Map<String, Integer> countsBySource() {
        Map<RestoreSource, Integer> counts = new EnumMap<>(RestoreSource.class);
        for (RestoreSource source : RestoreSource.values()) {
            counts.put(source, 0);
        }
        restoreSources.values().forEach(source -> counts.merge(source, 1, Integer::sum));
        Map<String, Integer> named = new LinkedHashMap<>();
        counts.forEach((source, count) -> named.put(source.wireName(), count));
        return named;
    }

    @Override
    public synchronized Map<String, Object> report() {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("phase", phase.name());
        report.put("from-parallelism", fromParallelism);
        report.put("to-parallelism", toParallelism);
        report.put("reached-parallelism", reachedParallelism);
        report.put("requested-at", requestedAtMillis);
        if (resumedAtMillis >= 0) {
            report.put("resumed-after-jobmanager-failover-at", resumedAtMillis);
        }
        if (restartSeenAtMillis >= 0) {
            report.put("restart-began-at", restartSeenAtMillis);
        }
        if (runningAtMillis >= 0) {
            report.put("running-at", runningAtMillis);
        }
        if (checkpointTrigger != null) {
            report.put("checkpoint-trigger", checkpointTrigger);
        }
        restoredCheckpoint.ifPresent(id -> report.put("restored-checkpoint", id));
        if (checkpointCompletedAtMillis >= 0) {
            report.put("checkpoint-completed-at", checkpointCompletedAtMillis);
        }
        Map<String, Long> durations = new LinkedHashMap<>();
        if (restartSeenAtMillis >= 0) {
            durations.put("until-restart", restartSeenAtMillis - requestedAtMillis);
        }
        if (runningAtMillis >= 0) {
            durations.put("downtime", runningAtMillis - restartSeenAtMillis);
            durations.put("total", runningAtMillis - requestedAtMillis);
        }
        report.put("phase-durations-ms", durations);
        if (phase == Phase.RUNNING) {
            report.put("restored-from", countsBySource());
            Map<Integer, String> byVnode = new TreeMap<>();
            restoreSources.forEach((vnode, source) -> byVnode.put(vnode, source.wireName()));
            report.put("restore-source-by-vnode", byVnode);
        }
        if (failure != null) {
            report.put("failure", failure);
        }
        return report;
    }
}
