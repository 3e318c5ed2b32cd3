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

package io.rhino.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.flink.testjobs.Multisets;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines;
import io.rhino.flink.testjobs.TestPipelines.Input;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rhino keyed streams on the Rhino state backend answer exactly like Flink's keyBy on Flink's
 * RocksDB backend: same sliding windows, merged sessions, timer outputs and join pairs.
 */
class RhinoEquivalenceITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers();

    private static final Input INPUT = new Input(8_000, 97, 0, 2);

    /**
     * Runs the test pipeline on {@code input} and returns its output. Plain Flink's output is a
     * function of the input alone, and the reference of most tests here: it is computed once per
     * input and vnode count in a test JVM and then reused.
     */
    static List<String> run(Mode mode, Input input, int vnodes) throws Exception {
        if (mode != Mode.PLAIN) {
            return execute(mode, input, vnodes);
        }
        PlainReference key = new PlainReference(input, vnodes);
        List<String> known = PLAIN_REFERENCES.get(key);
        if (known == null) {
            known = List.copyOf(execute(mode, input, vnodes));
            PLAIN_REFERENCES.put(key, known);
        }
        return known;
    }

    private record PlainReference(Input input, int vnodes) {}

    private static final Map<PlainReference, List<String>> PLAIN_REFERENCES =
            new ConcurrentHashMap<>();

    private static List<String> execute(Mode mode, Input input, int vnodes) throws Exception {
        Configuration config = RhinoClusters.jobConfig(mode);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(3);
        String runId = mode + "-" + UUID.randomUUID();
        TestPipelines.build(env, mode, input, vnodes).sinkTo(new ResultSink(runId));
        env.execute("equivalence-" + mode);
        return ResultSink.take(runId);
    }

    @Test
    void rhinoAnswersExactlyLikePlainFlink() throws Exception {
        List<String> plain = run(Mode.PLAIN, INPUT, 8);
        List<String> rhino = run(Mode.RHINO, INPUT, 8);

        for (String kind : List.of("sliding|", "session|", "process|", "join|", "plain|")) {
            assertThat(plain).as("reference output of %s", kind).anyMatch(l -> l.startsWith(kind));
        }
        assertThat(plain).hasSizeGreaterThan(10_000);
        Multisets.assertSameMultiset("Rhino vs plain Flink", plain, rhino);
    }
}
