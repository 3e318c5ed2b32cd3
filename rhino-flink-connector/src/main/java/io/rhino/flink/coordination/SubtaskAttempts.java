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

import io.rhino.core.routing.RoutingTable;
import io.rhino.handover.HandoverManager;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an operator's handover manager in step with its subtasks' attempts: it refuses handovers
 * from the moment a router or gate attempt ends until every subtask runs again (see {@link
 * SubtaskRecovery}), then follows the routers' table; and it names why an attempt ended.
 *
 * <p>States: {@code BEFORE_MANAGER} (attempts are only counted) until the gate coordinator's first
 * start, then {@code SUSPENDED} whenever an attempt ended and {@code RUNNING} once every subtask
 * reported its current attempt. Each start reported while every subtask runs resumes the manager at
 * the routers' table again.
 *
 * <p>Not thread-safe: the hub calls it under its monitor.
 */
final class SubtaskAttempts {

    private static final Logger LOG = LoggerFactory.getLogger(SubtaskAttempts.class);

    private enum State {
        BEFORE_MANAGER,
        SUSPENDED,
        RUNNING
    }

    private final String operatorName;
    private final SubtaskRecovery recovery;
    private State state = State.BEFORE_MANAGER;
    private HandoverManager manager; // set when leaving BEFORE_MANAGER
    // the first failure of the failover under way, named for the attempts Flink cancels after it
    private String failoverCause;

    SubtaskAttempts(String operatorName, int routers, int gates) {
        this.operatorName = operatorName;
        this.recovery = new SubtaskRecovery(routers, gates);
    }

    /**
     * The manager was created: it refuses handovers until every router and gate subtask runs.
     *
     * @return whether every subtask runs already, so the manager resumed
     */
    boolean managerStarted(HandoverManager started) {
        manager = started;
        state = State.SUSPENDED;
        manager.suspend("starting; waiting for " + recovery.waitingFor());
        return resumeIfAllRunning();
    }

    /**
     * A router attempt opened and routes by {@code table}.
     *
     * @return whether every subtask runs now, so the manager resumed
     */
    boolean routerStarted(int subtask, int attempt, RoutingTable table) {
        recovery.routerStarted(subtask, attempt, table);
        return resumeIfAllRunning();
    }

    /**
     * A gate attempt opened.
     *
     * @return whether every subtask runs now, so the manager resumed
     */
    boolean gateStarted(int subtask, int attempt) {
        recovery.gateStarted(subtask, attempt);
        return resumeIfAllRunning();
    }

    /** A router attempt failed ({@code attempt} >= 0) or is being reset ({@code attempt} = -1). */
    void routerGone(int subtask, int attempt, String reason) {
        recovery.routerGone(subtask, attempt);
        suspend(reason);
    }

    /** A gate attempt failed ({@code attempt} >= 0) or is being reset ({@code attempt} = -1). */
    void gateGone(int subtask, int attempt, String reason) {
        recovery.gateGone(subtask, attempt);
        suspend(reason);
    }

    /** The whole job restores a checkpoint (global failover, JobManager failover). */
    void allGone(String reason) {
        recovery.allGone();
        suspend(reason);
    }

    /**
     * Why a router or gate attempt ended, for the suspension and the handovers it fails. Flink
     * gives no reason for an attempt it cancels (its region restarts after another task failed, or
     * the job is cancelled): that one is named a cancellation, after the failure that caused it
     * when this operator saw one.
     */
    String attemptEnded(String role, int subtask, Throwable reason) {
        if (reason != null) {
            String failure = role + " subtask " + subtask + " failed: " + reason;
            if (failoverCause == null) {
                failoverCause = failure;
            }
            return failure;
        }
        return role
                + " subtask "
                + subtask
                + " was cancelled while the job failed over"
                + (failoverCause != null
                        ? " after " + failoverCause
                        : " (after a task of another operator failed) or was cancelled");
    }

    private void suspend(String reason) {
        if (state == State.BEFORE_MANAGER) {
            return;
        }
        state = State.SUSPENDED;
        manager.suspend(reason);
    }

    /**
     * Once every subtask runs again, the manager adopts the routers' table, which the restored
     * gates agree with, and accepts handovers.
     */
    private boolean resumeIfAllRunning() {
        if (state == State.BEFORE_MANAGER) {
            return false;
        }
        Optional<RoutingTable> agreed = recovery.agreedTable();
        if (agreed.isEmpty()) {
            return false;
        }
        if (recovery.routersDisagree()) {
            LOG.warn(
                    "Routers of Rhino operator '{}' restored different routing tables; following"
                            + " the newest, {}",
                    operatorName,
                    agreed.get());
        }
        manager.resume(agreed.get());
        state = State.RUNNING;
        failoverCause = null;
        return true;
    }
}
