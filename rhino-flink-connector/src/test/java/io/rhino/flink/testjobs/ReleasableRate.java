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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;

/**
 * A source rate the test ends: a fixed rate until {@link #release}, then unlimited, so a bounded
 * input lasts as long as the test needs it and still ends with exactly its events. The rate limiter
 * answers with futures, so the source task keeps serving its mailbox (handover commands,
 * checkpoints) while it waits.
 */
public final class ReleasableRate implements RateLimiterStrategy<SourceSplit> {

    private static final long serialVersionUID = 1L;
    private static final Map<String, AtomicBoolean> RELEASED = new ConcurrentHashMap<>();
    private static final Map<String, CompletableFuture<Void>> PAUSED = new ConcurrentHashMap<>();

    private final String runId;
    private final double eventsPerSecond;

    public ReleasableRate(String runId, double eventsPerSecond) {
        this.runId = runId;
        this.eventsPerSecond = eventsPerSecond;
        RELEASED.putIfAbsent(runId, new AtomicBoolean());
    }

    /** From now on the source emits at full speed. */
    public static void release(String runId) {
        RELEASED.get(runId).set(true);
    }

    /** The source emits nothing until {@link #resume}. */
    public static void pause(String runId) {
        PAUSED.putIfAbsent(runId, new CompletableFuture<>());
    }

    public static void resume(String runId) {
        CompletableFuture<Void> paused = PAUSED.remove(runId);
        if (paused != null) {
            paused.complete(null);
        }
    }

    @SuppressWarnings("unchecked")
    @Override
    public RateLimiter<SourceSplit> createRateLimiter(int parallelism) {
        RateLimiter<SourceSplit> limited =
                RateLimiterStrategy.perSecond(eventsPerSecond).createRateLimiter(parallelism);
        AtomicBoolean released = RELEASED.get(runId);
        return permits -> {
            CompletableFuture<Void> paused = PAUSED.get(runId);
            if (paused != null) {
                return paused.thenCompose(v -> limited.acquire(permits).toCompletableFuture());
            }
            return released.get()
                    ? CompletableFuture.completedFuture(null)
                    : limited.acquire(permits);
        };
    }
}
