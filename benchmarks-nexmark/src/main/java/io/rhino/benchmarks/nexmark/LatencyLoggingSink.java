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

import io.rhino.benchmarks.nexmark.queries.TimedResult;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops query results, logging every few seconds per subtask how many arrived and their end-to-end
 * latency: arrival time minus the creation timestamp of the newest contributing input. Only
 * meaningful with wall-clock creation timestamps.
 */
final class LatencyLoggingSink<T extends TimedResult> implements Sink<T> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(LatencyLoggingSink.class);
    private static final long REPORT_MILLIS = 5_000;

    private final String name;

    LatencyLoggingSink(String name) {
        this.name = name;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        return new SinkWriter<>() {
            private long results;
            private long maxLatency = Long.MIN_VALUE;
            private long latencySum;
            private long reported = System.currentTimeMillis();

            @Override
            public void write(T result, Context context) {
                long now = System.currentTimeMillis();
                long latency = now - result.newestCreation();
                results++;
                latencySum += latency;
                maxLatency = Math.max(maxLatency, latency);
                if (now - reported >= REPORT_MILLIS) {
                    report(now);
                }
            }

            private void report(long now) {
                LOG.info(
                        "{}[{}]: {} results in {} ms, latency mean {} ms, max {} ms",
                        name,
                        subtask,
                        results,
                        now - reported,
                        results == 0 ? 0 : latencySum / results,
                        results == 0 ? 0 : maxLatency);
                results = 0;
                latencySum = 0;
                maxLatency = Long.MIN_VALUE;
                reported = now;
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
