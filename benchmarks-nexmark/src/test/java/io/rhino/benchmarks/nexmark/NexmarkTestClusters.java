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

package io.rhino.benchmarks.nexmark;

import io.rhino.benchmarks.nexmark.queries.Variant;
import io.rhino.flink.state.RhinoStateBackendFactory;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;

/** The MiniCluster and job configuration of this module's query tests. */
public final class NexmarkTestClusters {

    private NexmarkTestClusters() {}

    /**
     * Two TaskManagers with two slots each, 256 MB of managed memory (RocksDB's) each: keyed
     * operators of parallelism 3 span both TaskManagers.
     */
    public static MiniClusterExtension twoTaskManagers() {
        Configuration config = new Configuration();
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("256m"));
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(2)
                        .setNumberSlotsPerTaskManager(2)
                        .setConfiguration(config)
                        .build());
    }

    /**
     * The Rhino state backend for the Rhino variant, Flink's heap backend for the plain one;
     * generic types (Kryo) are disabled, so a record that would need Kryo fails the job.
     */
    public static StreamExecutionEnvironment environment(Variant variant) {
        Configuration config = new Configuration();
        config.set(
                StateBackendOptions.STATE_BACKEND,
                variant == Variant.RHINO ? RhinoStateBackendFactory.class.getName() : "hashmap");
        config.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(2);
        return env;
    }

    /** Runs the job and returns every record of {@code outputs} as its string form. */
    @SafeVarargs
    public static List<String> collect(DataStream<? extends Object>... outputs) throws Exception {
        DataStream<String> lines = null;
        for (DataStream<? extends Object> output : outputs) {
            DataStream<String> strings = output.map(String::valueOf).returns(Types.STRING);
            lines = lines == null ? strings : lines.union(strings);
        }
        List<String> result = new ArrayList<>();
        try (CloseableIterator<String> it = lines.executeAndCollect("nexmark-test")) {
            it.forEachRemaining(result::add);
        }
        return result;
    }
}
