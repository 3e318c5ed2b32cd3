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

package io.rhino.flink.config;

import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Every configuration option of Rhino. Options are read from the job configuration first and the
 * cluster configuration second, like Flink's own. The reference in {@code docs/configuration.md} is
 * generated from this class.
 */
public final class RhinoOptions {

    /** Vnodes per deployed subtask when {@code rhino.vnodes} is not set. */
    public static final int DEFAULT_VNODES_PER_SUBTASK = 8;

    /** Above this many vnodes (RocksDB instances) in one slot the backend logs a warning. */
    public static final int MAX_VNODES_PER_SLOT_WITHOUT_WARNING = 16;

    /** The number of virtual nodes of a Rhino keyed operator, unless its options say otherwise. */
    public static final ConfigOption<Integer> VNODES =
            ConfigOptions.key("rhino.vnodes")
                    .intType()
                    .noDefaultValue()
                    .withDescription(
                            "Number of virtual nodes (vnodes) of each Rhino keyed operator. A vnode "
                                    + "is a fixed, contiguous range of key groups and the unit "
                                    + "of state migration; each owned vnode is one RocksDB "
                                    + "instance, and the instances of a slot share its managed "
                                    + "memory. Defaults to "
                                    + DEFAULT_VNODES_PER_SUBTASK
                                    + " per deployed subtask (at most the number of key groups). "
                                    + "More vnodes allow finer moves but cost throughput once a "
                                    + "slot holds more RocksDB instances than its memory feeds "
                                    + "well (a warning is logged above "
                                    + MAX_VNODES_PER_SLOT_WITHOUT_WARNING
                                    + " per slot).");

    /** The number of key groups (Flink's max parallelism) of a Rhino keyed operator. */
    public static final ConfigOption<Integer> KEY_GROUPS =
            ConfigOptions.key("rhino.key-groups")
                    .intType()
                    .defaultValue(1 << 15)
                    .withDescription(
                            "Number of key groups of each Rhino keyed operator, i.e. the "
                                    + "operator's max parallelism. Fixed for the life of the "
                                    + "job's state.");

    /** How many completed checkpoints' files the backend keeps. */
    public static final ConfigOption<Integer> RETAINED_CHECKPOINTS =
            ConfigOptions.key("rhino.state.retained-checkpoints")
                    .intType()
                    .noDefaultValue()
                    .withDescription(
                            "Number of completed checkpoints whose vnode files the Rhino state "
                                    + "backend keeps before deleting files no retained "
                                    + "checkpoint references. Defaults to "
                                    + "'execution.checkpointing.num-retained'.");

    /** How long a handover may take before it is failed and the job rolled back. */
    public static final ConfigOption<Duration> HANDOVER_TIMEOUT =
            ConfigOptions.key("rhino.handover.timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(60))
                    .withDescription(
                            "How long a handover may take. A handover still running after it is "
                                    + "reported FAILED with the phase it was stuck in and what it "
                                    + "waited for, and the job is restarted from the last "
                                    + "checkpoint (taken before the handover), since some routers "
                                    + "may already have switched. Read from the job "
                                    + "configuration when the Rhino keyed stream is built.");

    private RhinoOptions() {}
}
