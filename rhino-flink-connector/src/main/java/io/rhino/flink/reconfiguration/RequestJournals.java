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

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.handover.operation.OperationKind;
import io.rhino.handover.operation.OperationStep;
import io.rhino.handover.operation.Reconfiguration;
import io.rhino.handover.operation.Reconfigurations;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the reconfigurations of the jobs that set {@code rhino.rest.request-journal.dir} in their
 * {@link RequestJournal}, and takes over what an earlier JobManager of such a job recorded when the
 * job's first operator registers here: ended requests are answered for as recorded, a restart-based
 * rescale still in progress is followed on to its end ({@link RestartRescale#resumed}), and a live
 * reconfiguration still in progress is recorded as failed with that JobManager (the job went back
 * to its latest checkpoint).
 *
 * <p>Files are read and written on one thread of its own, never under the registry's lock or on the
 * REST server's event loop; the thread ends when idle, so nothing of Rhino outlives its jobs.
 */
public final class RequestJournals implements Reconfigurations.StartListener {

    private static final Logger LOG = LoggerFactory.getLogger(RequestJournals.class);
    static final int RETAINED = 1_000;
    private static final TypeReference<Map<String, Object>> VIEW = new TypeReference<>() {};

    private final Supplier<RhinoDirectory> directory;
    private final Map<String, Journaled> byJob = new ConcurrentHashMap<>();
    // starts queued and not yet written, by job and request id (see awaitStartRecorded)
    private final Map<String, CompletableFuture<Void>> startsNotWritten = new ConcurrentHashMap<>();
    private final ExecutorService io =
            new ThreadPoolExecutor(
                    0,
                    1,
                    5,
                    TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(),
                    runnable -> {
                        Thread thread = new Thread(runnable, "rhino-request-journal");
                        thread.setDaemon(true);
                        return thread;
                    });

    private record Journaled(RequestJournal journal, RhinoRuntimeSettings settings) {}

    /**
     * @param directory the process's Rhino operators and reconfigurations, once built
     */
    public RequestJournals(Supplier<RhinoDirectory> directory) {
        this.directory = directory;
    }

    /**
     * A Rhino operator of {@code jobId} registered in this process: the job's first one opens its
     * journal, if it has one, and takes over what it holds (on the journal's thread).
     */
    public void operatorRegistered(String jobId, RhinoRuntimeSettings settings) {
        Optional<String> root = settings.rest().requestJournal();
        if (root.isEmpty() || byJob.containsKey(jobId)) {
            return;
        }
        RequestJournal journal = new RequestJournal(new Path(root.get()), jobId);
        if (byJob.putIfAbsent(jobId, new Journaled(journal, settings)) == null) {
            io.execute(() -> takeOver(jobId, journal, settings));
        }
    }

    /** The job's last operator left this process; a later one takes the journal over again. */
    public void jobLeft(String jobId) {
        byJob.remove(jobId);
    }

    @Override
    public void started(Reconfiguration reconfiguration) {
        Journaled journaled = byJob.get(reconfiguration.jobId());
        if (journaled != null) {
            String key = startKey(reconfiguration);
            CompletableFuture<Void> written = new CompletableFuture<>();
            startsNotWritten.put(key, written);
            record(journaled.journal(), reconfiguration, RequestJournal.Record.STARTED);
            io.execute(
                    () -> {
                        startsNotWritten.remove(key, written);
                        written.complete(null);
                    });
            recordPhases(journaled.journal(), reconfiguration);
            recordEnd(journaled.journal(), reconfiguration);
        }
    }

    /**
     * A restart-based rescale is recorded again at each phase, so that a JobManager taking it over
     * knows when the restart began.
     */
    private void recordPhases(RequestJournal journal, Reconfiguration reconfiguration) {
        for (OperationStep step : reconfiguration.steps()) {
            step.report()
                    .filter(RestartRescale.class::isInstance)
                    .ifPresent(
                            report ->
                                    ((RestartRescale) report)
                                            .onPhaseChange(
                                                    () ->
                                                            record(
                                                                    journal,
                                                                    reconfiguration,
                                                                    RequestJournal.Record
                                                                            .STARTED)));
        }
    }

    /**
     * Returns once the start of {@code reconfiguration} was written (or its write failed, which is
     * logged), or after {@code timeout}: the REST API answers 202 only then, so that a JobManager
     * lost right after the answer leaves the request recorded.
     */
    public void awaitStartRecorded(Reconfiguration reconfiguration, Duration timeout) {
        CompletableFuture<Void> written = startsNotWritten.get(startKey(reconfiguration));
        if (written == null) {
            return;
        }
        try {
            written.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn(
                    "Reconfiguration '{}' of job {} is not recorded in its request journal after"
                            + " {}; answering without waiting longer",
                    reconfiguration.requestId(),
                    reconfiguration.jobId(),
                    timeout);
        }
    }

    private static String startKey(Reconfiguration reconfiguration) {
        return reconfiguration.jobId() + "/" + reconfiguration.requestId();
    }

    /** Waits until what was queued so far was read or written; for tests. */
    void awaitIdle() throws Exception {
        io.submit(() -> null).get(30, TimeUnit.SECONDS);
    }

    private void recordEnd(RequestJournal journal, Reconfiguration reconfiguration) {
        CompletableFuture.allOf(
                        reconfiguration.steps().stream()
                                .map(OperationStep::result)
                                .toArray(CompletableFuture[]::new))
                .whenComplete(
                        (done, failure) ->
                                record(journal, reconfiguration, RequestJournal.Record.ENDED));
    }

    private void record(
            RequestJournal journal, Reconfiguration reconfiguration, RequestJournal.Record record) {
        io.execute(
                () ->
                        write(
                                journal,
                                reconfiguration.requestId(),
                                record,
                                content(
                                        reconfiguration.operators(),
                                        ReconfigurationStatusView.of(
                                                reconfiguration, directory.get()))));
    }

    private static ObjectNode content(List<String> operators, ObjectNode view) {
        ObjectNode content = Json.MAPPER.createObjectNode();
        ArrayNode names = content.putArray("operators");
        operators.forEach(names::add);
        content.set("view", view);
        return content;
    }

    private static void write(
            RequestJournal journal,
            String requestId,
            RequestJournal.Record record,
            JsonNode content) {
        try {
            journal.write(requestId, record, content);
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "Could not record reconfiguration '{}' in {} ({}). It runs on; a JobManager"
                            + " that takes over after a failover will not know it.",
                    requestId,
                    journal.directory(),
                    e.toString());
        }
    }

    private void takeOver(String jobId, RequestJournal journal, RhinoRuntimeSettings settings) {
        Map<String, JsonNode> records;
        try {
            records = journal.latest();
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "Could not read the reconfiguration requests of job {} in {} ({}): requests"
                            + " an earlier JobManager accepted are not answered for here.",
                    jobId,
                    journal.directory(),
                    e.toString());
            return;
        }
        List<Map.Entry<String, JsonNode>> oldestFirst = new ArrayList<>(records.entrySet());
        oldestFirst.sort(
                Comparator.comparingLong(
                        e -> e.getValue().at("/view/operation/requested-at").asLong()));
        int excess = oldestFirst.size() - RETAINED;
        int taken = 0;
        for (Map.Entry<String, JsonNode> entry : oldestFirst) {
            if (excess-- > 0) {
                forget(journal, entry.getKey());
                continue;
            }
            try {
                taken +=
                        takeOver(journal, jobId, entry.getKey(), entry.getValue(), settings)
                                ? 1
                                : 0;
            } catch (RuntimeException e) {
                LOG.warn(
                        "Skipping the record of reconfiguration '{}' of job {} in {}: {}",
                        entry.getKey(),
                        jobId,
                        journal.directory(),
                        e.toString());
            }
        }
        if (taken > 0) {
            LOG.info(
                    "Took over {} reconfiguration requests of job {} an earlier JobManager"
                            + " recorded in {}",
                    taken,
                    jobId,
                    journal.directory());
        }
    }

    private static void forget(RequestJournal journal, String requestId) {
        try {
            journal.delete(requestId);
        } catch (IOException e) {
            LOG.debug("Could not delete the record of '{}': {}", requestId, e.toString());
        }
    }

    /** Adopts one recorded request; false if this process already knows its id. */
    private boolean takeOver(
            RequestJournal journal,
            String jobId,
            String requestId,
            JsonNode content,
            RhinoRuntimeSettings settings) {
        ObjectNode view = (ObjectNode) content.get("view").deepCopy();
        JsonNode operation = view.path("operation");
        List<String> operators = new ArrayList<>();
        content.path("operators").forEach(name -> operators.add(name.asText()));
        if (!requestId.equals(operation.path("request-id").asText())
                || !jobId.equals(operation.path("job").asText())
                || operators.isEmpty()) {
            throw new IllegalArgumentException(
                    "the record does not describe request " + requestId + " of job " + jobId);
        }
        Reconfiguration request =
                new Reconfiguration(
                        requestId,
                        OperationKind.valueOf(
                                operation.path("kind").asText().toUpperCase(Locale.ROOT)),
                        operation.path("job").asText(),
                        operators,
                        operation.path("parameters").asText(),
                        operation.path("requested-at").asLong(),
                        List.of());
        Reconfigurations registry = directory.get().reconfigurations();
        if (registry.get(requestId).isPresent()) {
            return false;
        }
        String status = view.at("/status/id").asText();
        JsonNode restart = operation.at("/handovers/0/restart");
        boolean inProgress = status.equals(Reconfiguration.Status.IN_PROGRESS.name());
        if (inProgress && restart.isObject()) {
            Optional<Reconfiguration> resumed =
                    resumed(request, operators.get(0), restart, settings, view);
            if (resumed.isPresent()) {
                if (!registry.adopt(resumed.get())) {
                    return false;
                }
                recordPhases(journal, resumed.get());
                recordEnd(journal, resumed.get());
                resumed.get().steps().get(0).report().ifPresent(RequestJournals::startFollowing);
                return true;
            }
        } else if (inProgress) {
            markFailed(view, lostWithItsJobManager(view, operators));
        }
        if (inProgress) { // now failed: later JobManagers read it so too
            write(journal, requestId, RequestJournal.Record.ENDED, content(operators, view));
        }
        ((ObjectNode) operation).put("read-from-request-journal", true);
        List<String> failures = new ArrayList<>();
        view.at("/operation/failures").forEach(f -> failures.add(f.asText()));
        return registry.adopt(
                request.recordedAs(
                        new Reconfiguration.Recorded(
                                Reconfiguration.Status.valueOf(view.at("/status/id").asText()),
                                failures,
                                Json.MAPPER.convertValue(view, VIEW))));
    }

    /**
     * The restart-based rescale {@code request} followed on here, or empty with {@code view} marked
     * failed where it cannot be (the job no longer names Flink's REST endpoint, or the record lacks
     * the parallelisms).
     */
    private Optional<Reconfiguration> resumed(
            Reconfiguration request,
            String operator,
            JsonNode restart,
            RhinoRuntimeSettings settings,
            ObjectNode view) {
        try {
            return Optional.of(
                    request.withSteps(
                            List.of(resumedRestart(request.jobId(), operator, restart, settings))));
        } catch (IllegalArgumentException e) {
            markFailed(
                    view,
                    "the JobManager running it was lost, and this one cannot follow it on: "
                            + e.getMessage()
                            + ". Read the operator's parallelism at GET /rhino/v1/jobs/"
                            + request.jobId()
                            + "/operators/"
                            + operator);
            return Optional.empty();
        }
    }

    private OperationStep resumedRestart(
            String jobId, String operator, JsonNode recorded, RhinoRuntimeSettings settings) {
        RhinoRuntimeSettings.Rescale rescale = settings.rescale();
        FlinkRest flink =
                new FlinkRest(
                        rescale.flinkRest()
                                .orElseThrow(
                                        () ->
                                                new IllegalArgumentException(
                                                        "a restart-based rescale, and the job"
                                                                + " no longer sets"
                                                                + " rhino.rescale.flink-rest-address")));
        RestartRescale resumed =
                RestartRescale.resumed(
                        directory.get(),
                        flink,
                        jobId,
                        operator,
                        recorded,
                        rescale.restartTimeout().toMillis(),
                        System::currentTimeMillis);
        return OperationStep.reported(operator, resumed.result(), resumed);
    }

    private static void startFollowing(OperationStep.StepReport report) {
        ((RestartRescale) report).resume();
    }

    /**
     * Why a live reconfiguration recorded in progress failed: the JobManager running it was lost,
     * and the job went back to its latest checkpoint. Whether its moves took effect depends on
     * whether that checkpoint was taken after them, which the record cannot tell.
     */
    private static String lostWithItsJobManager(ObjectNode view, List<String> operators) {
        return "the JobManager running it was lost before it ended (a JobManager failover); the"
                + " job went back to its latest checkpoint, which holds the routing before"
                + " it unless that checkpoint was taken after its moves completed. Read the"
                + " routing at GET /rhino/v1/jobs/"
                + view.at("/operation/job").asText()
                + "/operators/"
                + operators.get(0)
                + " and request again where needed";
    }

    /** Marks a recorded view, and its steps still in progress, failed for {@code reason}. */
    private static void markFailed(ObjectNode view, String reason) {
        ((ObjectNode) view.get("status")).put("id", Reconfiguration.Status.FAILED.name());
        ArrayNode failures = ((ObjectNode) view.get("operation")).putArray("failures");
        for (JsonNode step : view.at("/operation/handovers")) {
            if (step.path("status").asText().equals(Reconfiguration.Status.IN_PROGRESS.name())) {
                ((ObjectNode) step).put("status", Reconfiguration.Status.FAILED.name());
                ((ObjectNode) step).put("failure", reason);
                failures.add("operator '" + step.path("operator").asText() + "': " + reason);
            }
        }
        if (failures.isEmpty()) {
            failures.add(reason);
        }
    }
}
