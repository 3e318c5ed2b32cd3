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
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;

/**
 * Follows a rescale of a job from the outside, every {@value #POLL_MILLIS} ms, the same way for
 * every system: when a keyed subtask stopped, when every subtask of the new parallelism was
 * deployed and when all ran, and when the first result came after that. It also notes this JVM's
 * disk reads (the whole embedded cluster's) from the request until the subtasks ran.
 */
final class RestartRescaleWatch implements AutoCloseable {

    private static final long POLL_MILLIS = 25;

    private final MiniCluster cluster;
    private final JobID jobId;
    private final String operator;
    private final int target;
    private final LatencyRecorder results;
    private final Thread thread;
    private final long readBytesAtStart;
    private volatile boolean stopped;
    private volatile long restartBegan = -1;
    private volatile long deployed = -1;
    private volatile long running = -1;
    private volatile long firstResult = -1;
    private volatile long readBytesUntilRunning = -1;
    private volatile Exception failure;
    private long baseline;

    RestartRescaleWatch(
            MiniCluster cluster,
            JobID jobId,
            String operator,
            int target,
            LatencyRecorder results) {
        this.cluster = cluster;
        this.jobId = jobId;
        this.operator = operator;
        this.target = target;
        this.results = results;
        this.readBytesAtStart = readBytes();
        this.thread = new Thread(this::watch, "restart-rescale-watch");
        thread.setDaemon(true);
        thread.start();
    }

    long restartBegan() {
        return restartBegan;
    }

    long deployed() {
        return deployed;
    }

    long running() {
        return running;
    }

    long firstResult() {
        return firstResult;
    }

    /** Bytes this JVM read from disk from the start of the watch until the subtasks ran; -1. */
    long readBytesUntilRunning() {
        return readBytesUntilRunning;
    }

    /** Waits until the job restarted, runs at the target and produced; fails after timeout. */
    void awaitRestarted(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (running < 0 || firstResult < 0) {
            if (failure != null) {
                throw failure;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "The job did not restart at parallelism "
                                + target
                                + " within "
                                + timeout
                                + " (restart began "
                                + restartBegan
                                + ", deployed "
                                + deployed
                                + ")");
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    private void watch() {
        try {
            while (!stopped && (running < 0 || firstResult < 0)) {
                poll(System.currentTimeMillis());
                Thread.sleep(POLL_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            failure = e;
        }
    }

    private void poll(long now) throws Exception {
        JobStatus status = cluster.getJobStatus(jobId).get(1, TimeUnit.MINUTES);
        if (status.isGloballyTerminalState()) {
            throw new IllegalStateException("Job " + jobId + " ended as " + status);
        }
        List<ExecutionState> states = keyedStates();
        boolean allRunning =
                status == JobStatus.RUNNING
                        && !states.isEmpty()
                        && states.stream().allMatch(s -> s == ExecutionState.RUNNING);
        if (restartBegan < 0) {
            if (!allRunning) {
                restartBegan = now;
            }
            return;
        }
        if (deployed < 0
                && status == JobStatus.RUNNING
                && states.size() == target
                && states.stream()
                        .allMatch(
                                s ->
                                        s == ExecutionState.INITIALIZING
                                                || s == ExecutionState.RUNNING)) {
            deployed = now;
            baseline = results.resultsSoFar();
        }
        if (deployed >= 0 && running < 0 && states.size() == target && allRunning) {
            running = now;
            long read = readBytes();
            readBytesUntilRunning = read < 0 || readBytesAtStart < 0 ? -1 : read - readBytesAtStart;
        }
        if (deployed >= 0 && firstResult < 0 && results.resultsSoFar() > baseline) {
            firstResult = now;
        }
    }

    /** The states of the keyed operator's subtasks; empty while the job has no such vertex. */
    private List<ExecutionState> keyedStates() throws Exception {
        AccessExecutionGraph graph = cluster.getExecutionGraph(jobId).get(1, TimeUnit.MINUTES);
        List<String> names = new ArrayList<>();
        graph.getAllVertices().values().forEach(v -> names.add(v.getName()));
        List<ExecutionState> states = new ArrayList<>();
        String name = TaskManagerPlacement.keyedTaskName(names, operator).orElse(null);
        if (name == null) {
            return states;
        }
        for (AccessExecutionJobVertex vertex : graph.getAllVertices().values()) {
            if (vertex.getName().equals(name)) {
                for (AccessExecutionVertex subtask : vertex.getTaskVertices()) {
                    states.add(subtask.getExecutionState());
                }
            }
        }
        return states;
    }

    /** {@code read_bytes} of this process; -1 where there is no {@code /proc}. */
    static long readBytes() {
        Path io = Paths.get("/proc/self/io");
        try {
            for (String line : Files.readAllLines(io)) {
                if (line.startsWith("read_bytes:")) {
                    return Long.parseLong(line.substring("read_bytes:".length()).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.join(5_000);
    }
}
