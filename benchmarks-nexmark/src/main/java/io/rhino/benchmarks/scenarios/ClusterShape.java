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

package io.rhino.benchmarks.scenarios;

import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

/**
 * The embedded cluster a system under test runs on.
 *
 * @param taskManagers TaskManagers (the paper's VMs)
 * @param slotsPerTaskManager slots of each; spare slots let a job restart after a TaskManager dies
 * @param managedMemory managed memory (RocksDB's memory) of each TaskManager
 * @param flinkOptions Flink options (e.g. RocksDB's) set on the cluster and on every job, over the
 *     scenarios' own settings; the same for every system under test
 */
public record ClusterShape(
        int taskManagers,
        int slotsPerTaskManager,
        MemorySize managedMemory,
        Map<String, String> flinkOptions) {

    public ClusterShape {
        if (taskManagers < 1 || slotsPerTaskManager < 1) {
            throw new IllegalArgumentException("need at least one TaskManager and slot");
        }
        flinkOptions = Map.copyOf(flinkOptions);
    }

    public ClusterShape(int taskManagers, int slotsPerTaskManager, MemorySize managedMemory) {
        this(taskManagers, slotsPerTaskManager, managedMemory, Map.of());
    }

    /** {@link #flinkOptions} on top of {@code base}. */
    Configuration withFlinkOptions(Configuration base) {
        Configuration config = new Configuration(base);
        config.addAll(Configuration.fromMap(flinkOptions));
        return config;
    }

    /** Four TaskManagers of two slots: keyed parallelism 4, one subtask per TaskManager. */
    public static ClusterShape defaultShape() {
        return new ClusterShape(4, 2, MemorySize.parse("256m"));
    }

    int slots() {
        return taskManagers * slotsPerTaskManager;
    }
}
