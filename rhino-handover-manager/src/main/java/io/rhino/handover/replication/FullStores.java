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

package io.rhino.handover.replication;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * The TaskManagers whose replica store ran out of space recently, left out of replica chains for a
 * back-off time so that the checkpoints of the subtasks replicating to them succeed on other
 * TaskManagers; after it they are tried again. Reports carry how long ago the store last ran out of
 * space (an age, so no two clocks are compared); times here are this JVM's. Not thread-safe.
 */
public final class FullStores {

    private final long backoffMillis;
    private final Map<String, Long> fullAtMillis = new HashMap<>();

    public FullStores(Duration backoff) {
        if (backoff.isNegative()) {
            throw new IllegalArgumentException("backoff: " + backoff + " (expected: >= 0)");
        }
        this.backoffMillis = backoff.toMillis();
    }

    /**
     * A TaskManager's report.
     *
     * @param fullAgoMillis how long ago its store last ran out of space, negative if never
     * @return whether the set of {@linkplain #excluded excluded} TaskManagers changed
     */
    public boolean report(String taskManager, long fullAgoMillis, long nowMillis) {
        Set<String> before = excluded(nowMillis);
        // an event older than the back-off (reported again by every load report) is over
        if (fullAgoMillis >= 0 && fullAgoMillis < backoffMillis) {
            fullAtMillis.merge(taskManager, nowMillis - fullAgoMillis, Math::max);
        }
        return !before.equals(excluded(nowMillis));
    }

    /** Whether a back-off ended since the last call, changing the excluded set. */
    public boolean expired(long nowMillis) {
        return fullAtMillis.values().removeIf(at -> at + backoffMillis <= nowMillis);
    }

    /**
     * When the earliest back-off still recorded ends (checking {@link #expired} then changes the
     * excluded set), or empty if none is.
     */
    public OptionalLong nextExpiryMillis() {
        return fullAtMillis.values().stream().mapToLong(at -> at + backoffMillis).min();
    }

    /**
     * When each recorded TaskManager's back-off ends: a copy for readers on other threads, which
     * exclude the TaskManagers whose end is after their now, as {@link #excluded} does.
     */
    public Map<String, Long> backoffEndsMillis() {
        Map<String, Long> ends = new HashMap<>();
        fullAtMillis.forEach((taskManager, at) -> ends.put(taskManager, at + backoffMillis));
        return ends;
    }

    /** The TaskManagers no chain should include now. */
    public Set<String> excluded(long nowMillis) {
        Set<String> excluded = new TreeSet<>();
        fullAtMillis.forEach(
                (taskManager, at) -> {
                    if (at + backoffMillis > nowMillis) {
                        excluded.add(taskManager);
                    }
                });
        return excluded;
    }
}
