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

package io.rhino.flink.api;

import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.handover.StateTransfer;
import java.io.Serializable;
import java.time.Duration;
import java.util.Optional;

/**
 * Options of one Rhino keyed stream. Unset values fall back to the job configuration ({@code
 * rhino.vnodes}, {@code rhino.key-groups}) and the environment's parallelism.
 */
public final class RhinoKeyedStreamOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String name;
    private final Integer vnodes;
    private final Integer keyGroups;
    private final Integer parallelism;
    private final Integer activeParallelism;
    private final StateTransfer stateTransfer;
    private final Duration handoverTimeout;
    private final String routerUid;
    private final String gateUid;

    private RhinoKeyedStreamOptions(Builder builder) {
        this.name = builder.name;
        this.vnodes = builder.vnodes;
        this.keyGroups = builder.keyGroups;
        this.parallelism = builder.parallelism;
        this.activeParallelism = builder.activeParallelism;
        this.stateTransfer = builder.stateTransfer;
        this.handoverTimeout = builder.handoverTimeout;
        this.routerUid = builder.routerUid != null ? builder.routerUid : "rhino-router-" + name;
        this.gateUid = builder.gateUid != null ? builder.gateUid : "rhino-gate-" + name;
    }

    /** Options with the given operator name and every other value from configuration. */
    public static RhinoKeyedStreamOptions named(String name) {
        return builder(name).build();
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    public Optional<Integer> vnodes() {
        return Optional.ofNullable(vnodes);
    }

    public Optional<Integer> keyGroups() {
        return Optional.ofNullable(keyGroups);
    }

    public Optional<Integer> parallelism() {
        return Optional.ofNullable(parallelism);
    }

    public Optional<Integer> activeParallelism() {
        return Optional.ofNullable(activeParallelism);
    }

    /** How vnode state moves between subtasks in a handover. */
    public StateTransfer stateTransfer() {
        return stateTransfer;
    }

    /** Overrides {@code rhino.handover.timeout} for this operator. */
    public Optional<Duration> handoverTimeout() {
        return Optional.ofNullable(handoverTimeout);
    }

    /**
     * The router's uid, which keys its routing table in checkpoints and savepoints: {@code
     * rhino-router-<name>} unless set.
     */
    public String routerUid() {
        return routerUid;
    }

    /**
     * The gate's uid, which keys its coordinator's routing table in checkpoints and savepoints:
     * {@code rhino-gate-<name>} unless set.
     */
    public String gateUid() {
        return gateUid;
    }

    /** Builder of {@link RhinoKeyedStreamOptions}. */
    public static final class Builder {
        private final String name;
        private Integer vnodes;
        private Integer keyGroups;
        private Integer parallelism;
        private Integer activeParallelism;
        private StateTransfer stateTransfer = new LocalDirectoryStateTransfer();
        private Duration handoverTimeout;
        private String routerUid;
        private String gateUid;

        private Builder(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("name: must not be blank");
            }
            this.name = name;
        }

        /** Number of virtual nodes, the unit of state migration. */
        public Builder vnodes(int vnodes) {
            this.vnodes = vnodes;
            return this;
        }

        /** Number of key groups (the keyed operator's max parallelism). */
        public Builder keyGroups(int keyGroups) {
            this.keyGroups = keyGroups;
            return this;
        }

        /** Deployed parallelism: the most subtasks the operator can ever use without restart. */
        public Builder parallelism(int parallelism) {
            this.parallelism = parallelism;
            return this;
        }

        /** Subtasks that own vnodes at start; the rest are standby until vnodes move to them. */
        public Builder activeParallelism(int activeParallelism) {
            this.activeParallelism = activeParallelism;
            return this;
        }

        /**
         * How vnode state moves in a handover; defaults to {@link LocalDirectoryStateTransfer}
         * (TaskManagers on one machine).
         */
        public Builder stateTransfer(StateTransfer stateTransfer) {
            this.stateTransfer = java.util.Objects.requireNonNull(stateTransfer, "stateTransfer");
            return this;
        }

        /** How long a handover of this operator may take (overrides the configuration). */
        public Builder handoverTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException(
                        "handoverTimeout: " + timeout + " (expected: positive)");
            }
            this.handoverTimeout = timeout;
            return this;
        }

        /**
         * Sets the router's uid instead of {@code rhino-router-<name>}: to restore a savepoint
         * after renaming the Rhino keyed stream, pass the uid the savepoint's job had.
         */
        public Builder routerUid(String uid) {
            this.routerUid = requireUid("routerUid", uid);
            return this;
        }

        /**
         * Sets the gate's uid instead of {@code rhino-gate-<name>}: to restore a savepoint after
         * renaming the Rhino keyed stream, pass the uid the savepoint's job had.
         */
        public Builder gateUid(String uid) {
            this.gateUid = requireUid("gateUid", uid);
            return this;
        }

        private static String requireUid(String what, String uid) {
            if (uid == null || uid.isBlank()) {
                throw new IllegalArgumentException(what + ": must not be blank");
            }
            return uid;
        }

        public RhinoKeyedStreamOptions build() {
            RhinoKeyedStreamOptions options = new RhinoKeyedStreamOptions(this);
            if (options.routerUid().equals(options.gateUid())) {
                throw new IllegalArgumentException(
                        "gateUid: '"
                                + options.gateUid()
                                + "' (expected: another uid than the router's)");
            }
            return options;
        }
    }
}
