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

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link HandoverManager}. Immutable; build with {@link #builder()} or take {@link
 * #defaults()}.
 */
public final class HandoverManagerOptions {

    /** Default for {@link #timeout()}: 60 seconds. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    /** Default for {@link #maxQueued()}: one handover may wait behind a checkpoint. */
    public static final int DEFAULT_MAX_QUEUED = 1;

    /** Default for {@link #resultHistorySize()}: the last 100 results are kept. */
    public static final int DEFAULT_RESULT_HISTORY_SIZE = 100;

    private static final HandoverManagerOptions DEFAULTS = builder().build();

    private final Duration timeout;
    private final int maxQueued;
    private final int resultHistorySize;

    private HandoverManagerOptions(Builder builder) {
        this.timeout = builder.timeout;
        this.maxQueued = builder.maxQueued;
        this.resultHistorySize = builder.resultHistorySize;
    }

    /** Returns the options with every default. */
    public static HandoverManagerOptions defaults() {
        return DEFAULTS;
    }

    /** Returns a builder preset with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns how long a started handover may take before it fails and the job is restarted from
     * the pre-handover checkpoint.
     */
    public Duration timeout() {
        return timeout;
    }

    /**
     * Returns how many accepted handovers may wait for a checkpoint to end; a request beyond that
     * is rejected. Handovers requested while another one runs are always rejected.
     */
    public int maxQueued() {
        return maxQueued;
    }

    /** Returns how many finished handovers {@link HandoverManager#result} remembers. */
    public int resultHistorySize() {
        return resultHistorySize;
    }

    @Override
    public String toString() {
        return "HandoverManagerOptions{timeout="
                + timeout
                + ", maxQueued="
                + maxQueued
                + ", resultHistorySize="
                + resultHistorySize
                + "}";
    }

    /** Builds {@link HandoverManagerOptions}; every setter checks its argument. */
    public static final class Builder {

        private Duration timeout = DEFAULT_TIMEOUT;
        private int maxQueued = DEFAULT_MAX_QUEUED;
        private int resultHistorySize = DEFAULT_RESULT_HISTORY_SIZE;

        private Builder() {}

        /** Sets {@link HandoverManagerOptions#timeout()}; must be at least one millisecond. */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout: null (expected: a Duration >= 1 ms)");
            if (timeout.toMillis() < 1) {
                throw new IllegalArgumentException("timeout: " + timeout + " (expected: >= 1 ms)");
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * Sets {@link HandoverManagerOptions#maxQueued()}; 0 rejects requests during checkpoints.
         */
        public Builder maxQueued(int maxQueued) {
            if (maxQueued < 0) {
                throw new IllegalArgumentException("maxQueued: " + maxQueued + " (expected: >= 0)");
            }
            this.maxQueued = maxQueued;
            return this;
        }

        /** Sets {@link HandoverManagerOptions#resultHistorySize()}; must be at least 1. */
        public Builder resultHistorySize(int resultHistorySize) {
            if (resultHistorySize < 1) {
                throw new IllegalArgumentException(
                        "resultHistorySize: " + resultHistorySize + " (expected: >= 1)");
            }
            this.resultHistorySize = resultHistorySize;
            return this;
        }

        /** Returns the options. */
        public HandoverManagerOptions build() {
            return new HandoverManagerOptions(this);
        }
    }
}
