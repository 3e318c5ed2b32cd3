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

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * Passes records through and throws once, in subtask 0, after the job completed a given number of
 * checkpoints and the subtask saw a given number of records since. State is static, per run id,
 * because the function is restored from scratch after the failure.
 */
public final class FailOnceAfterCheckpoints<T> extends RichMapFunction<T, T>
        implements CheckpointListener {

    private static final Map<String, AtomicInteger> CHECKPOINTS = new ConcurrentHashMap<>();
    private static final Map<String, AtomicInteger> FAILURES = new ConcurrentHashMap<>();

    private final String runId;
    private final int checkpointsBeforeFailure;
    private final int recordsAfterCheckpoints;
    private transient int recordsSeen;

    public FailOnceAfterCheckpoints(
            String runId, int checkpointsBeforeFailure, int recordsAfterCheckpoints) {
        this.runId = runId;
        this.checkpointsBeforeFailure = checkpointsBeforeFailure;
        this.recordsAfterCheckpoints = recordsAfterCheckpoints;
        CHECKPOINTS.put(runId, new AtomicInteger());
        FAILURES.put(runId, new AtomicInteger());
    }

    /** How often the function failed in the run. */
    public static int failures(String runId) {
        return FAILURES.get(runId).get();
    }

    @Override
    public T map(T value) {
        if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0
                && FAILURES.get(runId).get() == 0
                && CHECKPOINTS.get(runId).get() >= checkpointsBeforeFailure
                && ++recordsSeen > recordsAfterCheckpoints) {
            FAILURES.get(runId).incrementAndGet();
            throw new RuntimeException("Injected failure after a completed checkpoint");
        }
        return value;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        CHECKPOINTS.get(runId).incrementAndGet();
    }
}
