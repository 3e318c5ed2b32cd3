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

import io.rhino.handover.replication.FullStores;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leaves a TaskManager whose replica store ran out of space out of every replica chain for the
 * back-off time (its own subtasks replicate to the others), so that the next checkpoints of the
 * subtasks that replicated to it succeed; then it is tried again. The timer takes a freed
 * TaskManager back when its back-off ends, not only when a gate's next report arrives: a gate whose
 * input ended reports no more.
 *
 * <p>Not thread-safe: the hub calls it under its monitor, and the timer's check enters through the
 * hub. After each change it publishes when each back-off ends, for readers on other threads.
 */
final class FullStoreBackoff {

    private static final Logger LOG = LoggerFactory.getLogger(FullStoreBackoff.class);

    private final String operatorName;
    private final Duration backoff;
    private final FullStores stores;
    private final ScheduledExecutorService timer;
    private final Runnable check;
    private final Consumer<Map<String, Long>> publish;
    // the timer's check of the earliest back-off's end, and when it runs
    private ScheduledFuture<?> pendingCheck;
    private long pendingCheckAtMillis;

    /**
     * @param check what the timer runs when a back-off may have ended; it calls {@link
     *     #backoffEnded} under the hub's monitor
     * @param publish receives each back-off's end (this JVM's millis) after every change
     */
    FullStoreBackoff(
            String operatorName,
            Duration backoff,
            FullStores stores,
            ScheduledExecutorService timer,
            Runnable check,
            Consumer<Map<String, Long>> publish) {
        this.operatorName = operatorName;
        this.backoff = backoff;
        this.stores = stores;
        this.timer = timer;
        this.check = check;
        this.publish = publish;
    }

    /**
     * A gate started on {@code taskManager}, whose store last ran out of space {@code
     * fullAgoMillis} ago (negative if never); the chains go out once every gate runs.
     */
    void gateStarted(String taskManager, long fullAgoMillis) {
        if (fullAgoMillis >= 0) {
            stores.report(taskManager, fullAgoMillis, System.currentTimeMillis());
            publish.accept(stores.backoffEndsMillis());
            checkWhenBackoffEnds();
        }
    }

    /**
     * A gate's periodic report about its TaskManager's store.
     *
     * @return whether the TaskManagers left out changed, so the chains must be sent again
     */
    boolean report(String taskManager, long fullAgoMillis) {
        long nowMillis = System.currentTimeMillis();
        boolean changed = stores.report(taskManager, fullAgoMillis, nowMillis);
        changed |= stores.expired(nowMillis);
        checkWhenBackoffEnds();
        return published(changed, nowMillis);
    }

    /**
     * The timer's check, when the earliest back-off should have ended.
     *
     * @return whether the TaskManagers left out changed, so the chains must be sent again
     */
    boolean backoffEnded() {
        if (timer.isShutdown()) {
            return false; // closed while this check waited for the hub's monitor
        }
        long nowMillis = System.currentTimeMillis();
        boolean changed = stores.expired(nowMillis);
        checkWhenBackoffEnds();
        return published(changed, nowMillis);
    }

    /** The TaskManagers no chain should include now. */
    Set<String> excluded(long nowMillis) {
        return stores.excluded(nowMillis);
    }

    /** Publishes the back-offs, logs the TaskManagers left out if they changed, and says so. */
    private boolean published(boolean changed, long nowMillis) {
        publish.accept(stores.backoffEndsMillis());
        if (changed) {
            LOG.warn(
                    "Replica stores of Rhino operator '{}' that ran out of space recently, left"
                            + " out of replica chains for {}: {}",
                    operatorName,
                    backoff,
                    stores.excluded(nowMillis));
        }
        return changed;
    }

    private void checkWhenBackoffEnds() {
        OptionalLong next = stores.nextExpiryMillis();
        if (next.isEmpty()
                || timer.isShutdown()
                || (pendingCheck != null
                        && !pendingCheck.isDone()
                        && pendingCheckAtMillis == next.getAsLong())) {
            return;
        }
        if (pendingCheck != null) {
            pendingCheck.cancel(false);
        }
        pendingCheckAtMillis = next.getAsLong();
        long delay = Math.max(0, pendingCheckAtMillis - System.currentTimeMillis());
        pendingCheck = timer.schedule(check, delay, TimeUnit.MILLISECONDS);
    }
}
