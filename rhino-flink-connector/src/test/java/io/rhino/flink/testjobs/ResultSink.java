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

package io.rhino.flink.testjobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/** Collects a job's output lines in this JVM (the MiniCluster runs in it), per run id. */
public final class ResultSink implements Sink<String> {

    private static final long serialVersionUID = 1L;
    private static final Map<String, Queue<String>> LINES_BY_RUN = new ConcurrentHashMap<>();

    private final String runId;

    public ResultSink(String runId) {
        this.runId = runId;
        LINES_BY_RUN.put(runId, new ConcurrentLinkedQueue<>());
    }

    /** Everything written for the run, in arrival order, and forgets it. */
    public static List<String> take(String runId) {
        Queue<String> lines = LINES_BY_RUN.remove(runId);
        return lines == null ? List.of() : new ArrayList<>(lines);
    }

    /** What was written for the run so far, in arrival order; the run goes on collecting. */
    public static List<String> lines(String runId) {
        Queue<String> lines = LINES_BY_RUN.get(runId);
        return lines == null ? List.of() : new ArrayList<>(lines);
    }

    @Override
    public SinkWriter<String> createWriter(WriterInitContext context) {
        Queue<String> lines = LINES_BY_RUN.get(runId);
        return new SinkWriter<>() {
            @Override
            public void write(String element, Context ctx) {
                lines.add(element);
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
