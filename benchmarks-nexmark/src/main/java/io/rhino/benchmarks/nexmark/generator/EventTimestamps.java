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

package io.rhino.benchmarks.nexmark.generator;

import java.io.Serializable;

/** The creation timestamp (epoch ms) of the event with a given global index. */
public interface EventTimestamps extends Serializable {

    long timestampOf(long index);

    /**
     * Deterministic event time: {@code base + index * 1000 / eventsPerSecond}, so the same events
     * get the same timestamps in every run (what tests need).
     */
    static EventTimestamps synthetic(long baseMillis, long eventsPerSecond) {
        if (eventsPerSecond < 1) {
            throw new IllegalArgumentException("eventsPerSecond must be positive");
        }
        return new Synthetic(baseMillis, eventsPerSecond);
    }

    /**
     * The wall-clock time at generation, for end-to-end latency measurements: a result's latency is
     * its arrival time minus the newest creation timestamp it carries.
     */
    static EventTimestamps wallClock() {
        return new WallClock();
    }

    /** See {@link #synthetic(long, long)}. */
    record Synthetic(long baseMillis, long eventsPerSecond) implements EventTimestamps {
        @Override
        public long timestampOf(long index) {
            return baseMillis + index * 1000 / eventsPerSecond;
        }
    }

    /** See {@link #wallClock()}. */
    record WallClock() implements EventTimestamps {
        @Override
        public long timestampOf(long index) {
            return System.currentTimeMillis();
        }
    }
}
