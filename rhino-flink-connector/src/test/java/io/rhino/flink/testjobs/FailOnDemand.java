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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * Passes records through and throws on the next record once a test {@link #arm arms} it. State is
 * static, per run id, because the function is restored from scratch after the failure.
 */
public final class FailOnDemand<T> implements MapFunction<T, T> {

    private static final Map<String, AtomicBoolean> ARMED = new ConcurrentHashMap<>();
    private static final Map<String, AtomicInteger> FAILURES = new ConcurrentHashMap<>();

    private final String runId;

    public FailOnDemand(String runId) {
        this.runId = runId;
        ARMED.put(runId, new AtomicBoolean());
        FAILURES.put(runId, new AtomicInteger());
    }

    /** The next record of the run fails its task. */
    public static void arm(String runId) {
        ARMED.get(runId).set(true);
    }

    /** Takes an {@link #arm} back. */
    public static void disarm(String runId) {
        ARMED.get(runId).set(false);
    }

    /** How often the function failed in the run. */
    public static int failures(String runId) {
        return FAILURES.get(runId).get();
    }

    @Override
    public T map(T value) {
        if (ARMED.get(runId).compareAndSet(true, false)) {
            FAILURES.get(runId).incrementAndGet();
            throw new RuntimeException("Injected failure on demand");
        }
        return value;
    }
}
