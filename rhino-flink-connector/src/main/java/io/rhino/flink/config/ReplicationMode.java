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

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How a Rhino operator moves vnode state between subtasks and keeps copies of its checkpoints
 * ({@code rhino.replication.mode}): chosen once, when the job is built.
 */
public enum ReplicationMode {
    /** Handovers through a local directory (one TaskManager, or a directory every one shares). */
    NONE("none"),
    /**
     * Chain replication of every checkpoint to peer TaskManagers; handovers between TaskManagers
     * through the target's replication service.
     */
    PEERS("peers"),
    /** RhinoDFS: handovers upload whole vnodes to {@code rhino.replication.dfs.path}. */
    DFS("dfs");

    private final String optionValue;

    ReplicationMode(String optionValue) {
        this.optionValue = optionValue;
    }

    /** The value of {@code rhino.replication.mode} that selects it. */
    public String optionValue() {
        return optionValue;
    }

    /** The mode {@code value} selects, or null if it selects none. */
    static ReplicationMode fromOptionValue(String value) {
        return Arrays.stream(values())
                .filter(mode -> mode.optionValue.equals(value))
                .findFirst()
                .orElse(null);
    }

    /** The values that select a mode, for error messages: "none, peers or dfs". */
    static String optionValues() {
        String all =
                Arrays.stream(values())
                        .map(ReplicationMode::optionValue)
                        .collect(Collectors.joining(", "));
        int last = all.lastIndexOf(", ");
        return all.substring(0, last) + " or " + all.substring(last + 2);
    }
}
