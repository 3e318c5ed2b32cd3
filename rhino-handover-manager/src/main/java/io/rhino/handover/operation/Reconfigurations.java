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

package io.rhino.handover.operation;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The reconfigurations of the Rhino jobs in one JobManager process, by request id: at most one runs
 * on an operator at a time, and a request repeated with its id is answered with the first one's
 * reconfiguration instead of running again (idempotent retries). Keeps the most recent ones, ended
 * or not, for status queries. Thread-safe.
 */
public final class Reconfigurations {

    /**
     * Starts the handovers of a reconfiguration; runs under the registry's lock, must not block.
     */
    @FunctionalInterface
    public interface Launcher {
        List<OperationStep> launch();
    }

    /** Learns of each reconfiguration started here; runs under the registry's lock. */
    @FunctionalInterface
    public interface StartListener {
        /** Must not block: e.g. queues work that waits for the steps' results. */
        void started(Reconfiguration reconfiguration);
    }

    private final int retained;
    private final LongSupplier clockMillis;
    private final StartListener listener;
    private final Map<String, Reconfiguration> byRequestId = new LinkedHashMap<>();

    /**
     * @param retained how many ended reconfigurations to keep answering for
     * @param clockMillis stamps requests
     */
    public Reconfigurations(int retained, LongSupplier clockMillis) {
        this(retained, clockMillis, reconfiguration -> {});
    }

    /**
     * @param retained how many ended reconfigurations to keep answering for
     * @param clockMillis stamps requests
     * @param listener told of each reconfiguration started (not of those {@link #adopt}ed)
     */
    public Reconfigurations(int retained, LongSupplier clockMillis, StartListener listener) {
        if (retained < 1) {
            throw new IllegalArgumentException("retained: " + retained + " (expected: >= 1)");
        }
        this.retained = retained;
        this.clockMillis = clockMillis;
        this.listener = listener;
    }

    /**
     * Starts a reconfiguration of {@code operators} of {@code jobId}, or returns the one this
     * request id already started if it was the same request.
     *
     * @throws ReconfigurationConflictException if the id was used for a different request, or a
     *     reconfiguration still runs on one of the operators
     * @throws RuntimeException whatever {@code launcher} throws (nothing is registered then)
     */
    public synchronized Reconfiguration start(
            String requestId,
            OperationKind kind,
            String jobId,
            List<String> operators,
            String parameters,
            Launcher launcher) {
        Reconfiguration existing = byRequestId.get(requestId);
        if (existing != null) {
            if (existing.isSameRequest(kind, jobId, operators, parameters)) {
                return existing;
            }
            throw new ReconfigurationConflictException(
                    "request-id '"
                            + requestId
                            + "' was already used for a "
                            + existing.kind()
                            + " of "
                            + existing.operators()
                            + " in job "
                            + existing.jobId()
                            + " with "
                            + existing.parameters()
                            + "; send a new request-id for a new request");
        }
        for (String operator : operators) {
            Optional<Reconfiguration> running = running(jobId, operator);
            if (running.isPresent()) {
                throw new ReconfigurationConflictException(
                        "reconfiguration '"
                                + running.get().requestId()
                                + "' ("
                                + running.get().kind()
                                + ") still runs on operator '"
                                + operator
                                + "'; wait for it to end (GET its status) and retry");
            }
        }
        Reconfiguration started =
                new Reconfiguration(
                        requestId,
                        kind,
                        jobId,
                        operators,
                        parameters,
                        clockMillis.getAsLong(),
                        launcher.launch());
        byRequestId.put(requestId, started);
        evictEnded();
        listener.started(started);
        return started;
    }

    /**
     * Keeps answering for a reconfiguration an earlier JobManager accepted (recorded or resumed),
     * unless this registry already knows its request id.
     *
     * @return whether it was added
     */
    public synchronized boolean adopt(Reconfiguration reconfiguration) {
        if (byRequestId.containsKey(reconfiguration.requestId())) {
            return false;
        }
        byRequestId.put(reconfiguration.requestId(), reconfiguration);
        evictEnded();
        return true;
    }

    public synchronized Optional<Reconfiguration> get(String requestId) {
        return Optional.ofNullable(byRequestId.get(requestId));
    }

    /** The reconfiguration running on the operator, if any. */
    public synchronized Optional<Reconfiguration> running(String jobId, String operator) {
        for (Reconfiguration reconfiguration : byRequestId.values()) {
            if (reconfiguration.touches(jobId, operator)
                    && reconfiguration.status() == Reconfiguration.Status.IN_PROGRESS) {
                return Optional.of(reconfiguration);
            }
        }
        return Optional.empty();
    }

    /** The retained reconfigurations that touched the operator, newest first. */
    public synchronized List<Reconfiguration> recent(String jobId, String operator) {
        List<Reconfiguration> recent = new ArrayList<>();
        for (Reconfiguration reconfiguration : byRequestId.values()) {
            if (reconfiguration.touches(jobId, operator)) {
                recent.add(0, reconfiguration);
            }
        }
        return recent;
    }

    /** Forgets a job's reconfigurations once it ended. */
    public synchronized void forgetJob(String jobId) {
        // one still in progress outlives its job's operators: a restart of the job it asked for
        // closes them, and its status must still answer
        byRequestId
                .values()
                .removeIf(
                        r ->
                                r.jobId().equals(jobId)
                                        && r.status() != Reconfiguration.Status.IN_PROGRESS);
    }

    private void evictEnded() {
        int excess = byRequestId.size() - retained;
        Iterator<Reconfiguration> oldestFirst = byRequestId.values().iterator();
        while (excess > 0 && oldestFirst.hasNext()) {
            if (oldestFirst.next().status() != Reconfiguration.Status.IN_PROGRESS) {
                oldestFirst.remove();
                excess--;
            }
        }
    }
}
