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

package io.rhino.flink.coordination;

import io.rhino.flink.reconfiguration.OperatorView;
import io.rhino.flink.reconfiguration.RequestJournals;
import io.rhino.flink.reconfiguration.RhinoDirectory;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.operation.Reconfiguration;
import io.rhino.handover.operation.Reconfigurations;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobID;

/**
 * The Java entry point to live handovers, in the JobManager process: look up the handover manager
 * of a running Rhino operator by job and operator name, then call {@link HandoverManager#handover}.
 * The REST API is built on this.
 */
public final class RhinoHandovers {

    private record OperatorKey(JobID jobId, String operatorName) {}

    private static final Map<OperatorKey, RhinoOperatorHub> HUBS = new ConcurrentHashMap<>();

    /** How to stop serving each registered operator beyond this Java API (e.g. over REST). */
    private static final Map<RhinoOperatorHub, OperatorServing.Stop> SERVED =
            new ConcurrentHashMap<>();

    /** Records the reconfigurations of jobs that keep a request journal, and takes them over. */
    private static final RequestJournals JOURNALS = new RequestJournals(RhinoHandovers::directory);

    /** The reconfigurations of every job in this process, ended ones kept for status queries. */
    private static final Reconfigurations RECONFIGURATIONS =
            new Reconfigurations(1_000, System::currentTimeMillis, JOURNALS);

    private static final RhinoDirectory DIRECTORY =
            new RhinoDirectory() {
                @Override
                public List<OperatorView> operators() {
                    return HUBS.values().stream()
                            .<OperatorView>map(RhinoOperatorHub::view)
                            .toList();
                }

                @Override
                public Reconfigurations reconfigurations() {
                    return RECONFIGURATIONS;
                }

                @Override
                public void awaitRecorded(Reconfiguration reconfiguration, Duration timeout) {
                    JOURNALS.awaitStartRecorded(reconfiguration, timeout);
                }
            };

    private RhinoHandovers() {}

    /** The manager of the named Rhino operator of a running job. */
    public static HandoverManager manager(JobID jobId, String operatorName) {
        return find(jobId, operatorName)
                .orElseThrow(
                        () ->
                                new NoSuchElementException(
                                        "No running Rhino operator '"
                                                + operatorName
                                                + "' in job "
                                                + jobId
                                                + "; running Rhino operators: "
                                                + operators(jobId).keySet()));
    }

    /**
     * Whether handovers can be requested on the named operator: its manager is up, every router and
     * gate subtask runs, and the manager follows the routers' table (see {@link
     * HandoverManager#suspension()} for why not).
     */
    public static boolean isReady(JobID jobId, String operatorName) {
        return find(jobId, operatorName)
                .map(manager -> manager.suspension().isEmpty())
                .orElse(false);
    }

    /**
     * Waits until {@link #isReady} and returns the operator's manager.
     *
     * @throws TimeoutException naming the operator and the Rhino operators that are running
     */
    public static HandoverManager awaitReady(JobID jobId, String operatorName, Duration timeout)
            throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!isReady(jobId, operatorName)) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException(
                        "Rhino operator '"
                                + operatorName
                                + "' of job "
                                + jobId
                                + " is not ready after "
                                + timeout
                                + " ("
                                + find(jobId, operatorName)
                                        .flatMap(HandoverManager::suspension)
                                        .orElse("not running")
                                + "); running Rhino operators and their gates: "
                                + operators(jobId));
            }
            Thread.sleep(20);
        }
        return manager(jobId, operatorName);
    }

    public static Optional<HandoverManager> find(JobID jobId, String operatorName) {
        return Optional.ofNullable(HUBS.get(new OperatorKey(jobId, operatorName)))
                .flatMap(RhinoOperatorHub::existingManager);
    }

    /** The running Rhino operators of a job, by name, with their gates' TaskManagers. */
    public static Map<String, Map<Integer, String>> operators(JobID jobId) {
        Map<String, Map<Integer, String>> operators = new TreeMap<>();
        HUBS.forEach(
                (key, hub) -> {
                    if (key.jobId().equals(jobId)) {
                        operators.put(key.operatorName(), hub.view().taskManagerBySubtask());
                    }
                });
        return operators;
    }

    /** The running Rhino operators of this process, for the REST API and the auto-balancers. */
    public static RhinoDirectory directory() {
        return DIRECTORY;
    }

    /** An operator's coordinator started: list it, and serve it (over REST if enabled). */
    static synchronized void register(RhinoOperatorHub hub, OperatorServing serving) {
        HUBS.put(new OperatorKey(hub.flinkJobId(), hub.spec().name()), hub);
        hub.view()
                .settings()
                .ifPresent(
                        settings -> {
                            SERVED.computeIfAbsent(hub, h -> serving.serve(settings, DIRECTORY));
                            JOURNALS.operatorRegistered(hub.view().jobId(), settings);
                        });
    }

    /** An operator's coordinator closed: the last one of a job forgets its reconfigurations. */
    static synchronized void unregister(RhinoOperatorHub hub) {
        HUBS.remove(new OperatorKey(hub.flinkJobId(), hub.spec().name()), hub);
        OperatorServing.Stop served = SERVED.remove(hub);
        if (served != null) {
            served.stop();
        }
        if (HUBS.keySet().stream().noneMatch(key -> key.jobId().equals(hub.flinkJobId()))) {
            RECONFIGURATIONS.forgetJob(hub.view().jobId());
            JOURNALS.jobLeft(hub.view().jobId());
        }
        if (HUBS.isEmpty()) {
            // the last operator of this copy of Rhino: no JDK cache may keep it after its job
            RecordMethodCaches.release();
        }
    }
}
