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

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The probes inside a Flink job on an embedded cluster, with two subtasks each. */
class LatencyProbeTest {

    private static final long RECORDS = 20_000;
    private static final long AGE_MILLIS = 7;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    void probesRecordOneSamplePerRecordAcrossSubtasks() throws Exception {
        String runId = "probe-test-" + System.nanoTime();
        LatencyRecorder recorder = LatencyRecorders.register(runId, LatencyRecorder.startingNow());
        ThroughputMeter meter = ThroughputMeters.register(runId, ThroughputMeter.startingNow());
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            // Each record is its own creation timestamp, a few ms in the past.
            env.fromSequence(1, RECORDS)
                    .map(i -> System.currentTimeMillis() - AGE_MILLIS)
                    .returns(Types.LONG)
                    .map(new LatencyProbe<Long>(runId, created -> created))
                    .returns(Types.LONG)
                    .map(new ThroughputProbe<Long>(runId, created -> Long.BYTES))
                    .returns(Types.LONG)
                    .sinkTo(new DiscardingSink<>());
            env.execute("latency-probe");
            recorder.tick();
            meter.tick();

            LatencyStats total = recorder.report().total();
            assertThat(total.count()).isEqualTo(RECORDS);
            assertThat(total.minMs()).isGreaterThanOrEqualTo(AGE_MILLIS);
            assertThat(
                            recorder.report().perSecond().stream()
                                    .mapToLong(s -> s.stats().count())
                                    .sum())
                    .isEqualTo(RECORDS);
            assertThat(meter.report().records()).isEqualTo(RECORDS);
            assertThat(meter.report().bytes()).isEqualTo(RECORDS * Long.BYTES);
        } finally {
            LatencyRecorders.remove(runId);
            ThroughputMeters.remove(runId);
        }
    }
}
