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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A single-threaded {@link ScheduledExecutorService} driven by a {@link FakeClock}: delayed tasks
 * run only inside {@link #advance(long)}, on the calling thread, in due order. Only {@code
 * schedule(Runnable, ...)} is supported, which is all the manager uses.
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final FakeClock clock;
    private final List<Task> tasks = new ArrayList<>();
    private long sequence;
    private boolean shutdown;

    ManualScheduler(FakeClock clock) {
        this.clock = clock;
    }

    /** Advances the clock by {@code millis}, running every task that falls due, in order. */
    void advance(long millis) {
        long target = clock.getAsLong() + millis;
        while (true) {
            Task next = null;
            for (Task task : tasks) {
                if (!task.isDone() && task.dueMillis <= target) {
                    if (next == null
                            || task.dueMillis < next.dueMillis
                            || (task.dueMillis == next.dueMillis && task.seq < next.seq)) {
                        next = task;
                    }
                }
            }
            if (next == null) {
                break;
            }
            clock.advance(Math.max(0, next.dueMillis - clock.getAsLong()));
            next.run();
        }
        clock.advance(target - clock.getAsLong());
        tasks.removeIf(Task::isDone);
    }

    /** Returns how many scheduled tasks are neither run nor cancelled. */
    int pendingTasks() {
        return (int) tasks.stream().filter(t -> !t.isDone()).count();
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        if (shutdown) {
            throw new java.util.concurrent.RejectedExecutionException("scheduler is shut down");
        }
        Task task = new Task(command, clock.getAsLong() + unit.toMillis(delay), sequence++);
        tasks.add(task);
        return task;
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the manager");
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(
            Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the manager");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(
            Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the manager");
    }

    @Override
    public void execute(Runnable command) {
        throw new UnsupportedOperationException("not used by the manager");
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }

    private final class Task implements ScheduledFuture<Object> {

        private final Runnable command;
        private final long dueMillis;
        private final long seq;
        private boolean cancelled;
        private boolean ran;

        Task(Runnable command, long dueMillis, long seq) {
            this.command = command;
            this.dueMillis = dueMillis;
            this.seq = seq;
        }

        void run() {
            ran = true;
            command.run();
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueMillis - clock.getAsLong(), TimeUnit.MILLISECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(
                    getDelay(TimeUnit.MILLISECONDS), other.getDelay(TimeUnit.MILLISECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (ran || cancelled) {
                return false;
            }
            cancelled = true;
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return ran || cancelled;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }
    }
}
