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

package io.rhino.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillingLatencyProbeTest {

    private static final long LATENCY_MS = 5_000;

    @TempDir Path directory;

    @Test
    void everyLatencyAJobsSubtasksWroteReachesTheRecorder() throws Exception {
        int records = 1_000;
        long created = System.currentTimeMillis() - LATENCY_MS;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2);
        List<Long> creations = LongStream.range(0, records).map(i -> created).boxed().toList();
        env.fromData(creations, Types.LONG)
                .rebalance()
                .map(new SpillingLatencyProbe<Long>(directory, creation -> creation))
                .returns(Types.LONG)
                .sinkTo(new DiscardingSink<>());
        env.execute("spilling latency probe");

        LatencyRecorder recorder = LatencyRecorder.startingNow();
        LatencySpillReader reader = LatencySpillReader.start(directory, recorder);
        reader.close();
        // what the reader's thread did not read before it stopped
        reader.readNewSamples();
        recorder.tick();
        assertThat(recorder.resultsSoFar()).isEqualTo(records);
        assertThat(recorder.report().total().minMs()).isGreaterThanOrEqualTo(LATENCY_MS);
        try (var files = Files.list(directory)) {
            assertThat(files.count()).as("one file per subtask").isEqualTo(2);
        }
    }

    @Test
    void aTornLastSampleWaitsUntilItIsWhole() throws Exception {
        Path file = directory.resolve("0-0-a" + SpillingLatencyProbe.SUFFIX);
        Files.write(file, new byte[] {0, 0, 0, 7, 0, 0});
        LatencyRecorder recorder = LatencyRecorder.startingNow();
        LatencySpillReader reader = LatencySpillReader.start(directory, recorder);
        reader.close();
        reader.readNewSamples();
        assertThat(recorder.resultsSoFar()).isEqualTo(1);

        Files.write(file, new byte[] {0, 9}, StandardOpenOption.APPEND);
        reader.readNewSamples();
        recorder.tick();
        assertThat(recorder.resultsSoFar()).isEqualTo(2);
        assertThat(recorder.report().total().maxMs()).isEqualTo(9);
        assertThat(recorder.report().total().minMs()).isEqualTo(7);
    }
}
