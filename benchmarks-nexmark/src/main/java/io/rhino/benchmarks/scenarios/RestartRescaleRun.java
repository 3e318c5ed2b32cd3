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

package io.rhino.benchmarks.scenarios;

import io.rhino.benchmarks.harness.LatencyRecorder;
import io.rhino.benchmarks.harness.PhaseTimings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rescale of a running job to another parallelism, measured the same way for every system under
 * test ({@link RestartRescaleWatch}, {@link RestartRescaleTimeline}); what differs is how each asks
 * for it ({@link Request}).
 *
 * @param system the system under test, for the log
 * @param deployment its cluster and job
 * @param checkpointStorage the job's checkpoint directory, dropped from the page cache first when
 *     {@code cold}
 * @param operator the keyed operator whose parallelism changes
 */
record RestartRescaleRun(
        String system, Deployment deployment, Path checkpointStorage, String operator) {

    private static final Logger LOG = LoggerFactory.getLogger(RestartRescaleRun.class);

    /** The reconfiguration's kind; parameters {@link #PARALLELISM} and {@link #COLD}. */
    static final String KIND = "restart-rescale";

    static final String PARALLELISM = "parallelism";
    static final String COLD = TaskManagerFailure.COLD_CHECKPOINT_STORAGE;

    /** The catch-up bound of the restart rescale: p99 latency under a second. */
    static final Duration CAUGHT_UP_P99 = Duration.ofSeconds(1);

    static final Duration TIMEOUT = Duration.ofMinutes(15);

    static final String SCHEDULER = "jobmanager.scheduler";
    static final String ADAPTIVE = "adaptive";

    /**
     * The cluster's options for a rescale Flink carries out: the adaptive scheduler, which rescales
     * as soon as a checkpoint completed after new requirements (no resource stabilization wait, no
     * cool-down after the job's start), and Flink's reports of each job initialization.
     */
    static Map<String, String> clusterOptions() {
        Configuration config = new Configuration();
        config.set(JobManagerOptions.SCHEDULER, JobManagerOptions.SchedulerType.Adaptive);
        config.set(JobManagerOptions.SCHEDULER_EXECUTING_COOLDOWN_AFTER_RESCALING, Duration.ZERO);
        config.set(
                JobManagerOptions.SCHEDULER_EXECUTING_RESOURCE_STABILIZATION_TIMEOUT,
                Duration.ZERO);
        config.set(
                JobManagerOptions.SCHEDULER_SUBMISSION_RESOURCE_STABILIZATION_TIMEOUT,
                Duration.ZERO);
        // the keyed subtasks spread over the TaskManagers, as the default scheduler places them
        config.set(JobManagerOptions.SCHEDULER_PREFER_MINIMAL_TASKMANAGERS_ENABLED, false);
        Map<String, String> options =
                new LinkedHashMap<>(InitializationSpans.register(config).toMap());
        return options;
    }

    /** Figures of a run: the disk read while restarting and what Flink reports of the restore. */
    static final String DISK_READ_MB = "disk read until running (MB)";

    static final String RESTORED_MB = "restored state, Flink's report (MB)";

    /** How a system asks for the rescale; returns once it considers it done. */
    interface Request {
        /**
         * Asks for the rescale and returns when the system says it completed (epoch ms), or -1 if
         * it does not say (the watch then decides).
         */
        long send() throws Exception;
    }

    /** The steps of the rescale and the run's figures. */
    record Outcome(PhaseTimings timings, Map<String, Double> figures) {}

    Outcome run(int target, boolean cold, LatencyRecorder results, Request request)
            throws Exception {
        if (cold) {
            ColdCheckpointStorage.evict(checkpointStorage);
        }
        RestartRescaleTimeline timeline;
        Map<String, Double> figures = new LinkedHashMap<>();
        long requested;
        try (RestartRescaleWatch watch =
                new RestartRescaleWatch(
                        deployment.cluster().miniCluster(),
                        deployment.jobId(),
                        operator,
                        target,
                        results)) {
            requested = System.currentTimeMillis();
            long completed = request.send();
            if (watch.restartBegan() < 0 && completed >= 0) {
                timeline = new RestartRescaleTimeline(requested, -1, -1, completed, -1, -1, -1);
            } else {
                watch.awaitRestarted(TIMEOUT);
                long fetching =
                        InitializationSpans.firstSince(watch.restartBegan())
                                .flatMap(r -> r.attribute(InitializationSpans.MAX_DOWNLOAD_MS))
                                .map(Double::longValue)
                                .orElse(-1L);
                timeline =
                        new RestartRescaleTimeline(
                                requested,
                                watch.restartBegan(),
                                watch.deployed(),
                                watch.running(),
                                watch.firstResult(),
                                -1,
                                fetching);
                if (watch.readBytesUntilRunning() >= 0) {
                    figures.put(DISK_READ_MB, watch.readBytesUntilRunning() / 1e6);
                }
                InitializationSpans.firstSince(watch.restartBegan())
                        .flatMap(r -> r.attribute(InitializationSpans.SUM_RESTORED_BYTES))
                        .ifPresent(bytes -> figures.put(RESTORED_MB, bytes / 1e6));
            }
        }
        long caughtUp =
                Backlog.awaitCaughtUp(
                                system + ": the records since the rescale",
                                results,
                                CAUGHT_UP_P99,
                                TIMEOUT)
                        .orElse(-1L);
        timeline =
                new RestartRescaleTimeline(
                        timeline.requested(),
                        timeline.restartBegan(),
                        timeline.deployed(),
                        timeline.running(),
                        timeline.firstResult(),
                        caughtUp,
                        timeline.stateFetchingMillis());
        PhaseTimings timings = timeline.phases();
        LOG.info(
                "{}: rescaled {} to {}: {} {}",
                system,
                operator,
                target,
                timings.durations(),
                figures);
        return new Outcome(timings, figures);
    }
}
