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

package io.rhino.handover;

import java.util.ArrayDeque;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the manager's side effects (port calls, checkpoint {@code proceed}s, future completions)
 * outside its lock, one at a time and in the order they were decided.
 *
 * <p>The manager {@link #add adds} actions while holding its lock, so their order is the order of
 * its decisions, and calls {@link #runPending()} after releasing it. Whichever thread finds the
 * queue idle runs everything pending, including what other threads add meanwhile; the others return
 * at once. So an action may call back into the manager (a port that answers synchronously, a future
 * callback that requests the next handover): its own actions run after it, never nested, never
 * under the lock.
 */
final class ActionQueue {

    private static final Logger LOG = LoggerFactory.getLogger(ActionQueue.class);

    private final String operatorName;

    // Guarded by this queue's own monitor, which is never held while an action runs.
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>();
    private boolean running;

    ActionQueue(String operatorName) {
        this.operatorName = operatorName;
    }

    /** Appends an action; it runs at the next {@link #runPending()} of any thread. */
    void add(Runnable action) {
        Objects.requireNonNull(action, "action: null (expected: a Runnable)");
        synchronized (this) {
            pending.add(action);
        }
    }

    /**
     * Runs pending actions until none is left, unless another thread (or an enclosing call on this
     * thread) is already doing so. An action that throws is logged and skipped.
     */
    void runPending() {
        synchronized (this) {
            if (running) {
                return;
            }
            running = true;
        }
        try {
            while (true) {
                Runnable next;
                synchronized (this) {
                    next = pending.poll();
                    if (next == null) {
                        running = false;
                        return;
                    }
                }
                runSafely(next);
            }
        } catch (Throwable fatal) {
            // Errors escape; do not leave the queue wedged for the other threads.
            synchronized (this) {
                running = false;
            }
            throw fatal;
        }
    }

    private void runSafely(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            LOG.warn(
                    "Handover manager of operator '{}': an action failed and was skipped",
                    operatorName,
                    e);
        }
    }
}
