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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@link Events} from one source subtask that the test holds by run id: a pause it lifts, and a
 * hold before the input's last event, which it releases once the job emitted what it waits for
 * (processing-time timers still pending when the input ends never fire). Holds are rate-limiter
 * futures, so the source task keeps serving its mailbox (checkpoints, savepoints, handover commands
 * to a chained router) while it waits.
 */
public final class HeldEvents {

    private static final Map<String, CompletableFuture<Void>> PAUSED = new ConcurrentHashMap<>();
    private static final Set<String> LAST_EVENT_DUE = ConcurrentHashMap.newKeySet();
    private static final Map<String, CompletableFuture<Void>> LAST_EVENT_RELEASED =
            new ConcurrentHashMap<>();

    private HeldEvents() {}

    /** As {@link Events#stream}, at parallelism 1, held for {@code runId}. */
    public static SingleOutputStreamOperator<Tuple3<Long, Long, Long>> stream(
            StreamExecutionEnvironment env,
            String name,
            String runId,
            long seed,
            long count,
            long millisPerEvent,
            int keys,
            double eventsPerSecond) {
        return env.fromSource(
                        new DataGeneratorSource<>(
                                new Generator(runId, seed, count, millisPerEvent, keys),
                                count,
                                new HeldRate(runId, eventsPerSecond),
                                Events.TYPE),
                        WatermarkStrategy.<Tuple3<Long, Long, Long>>forMonotonousTimestamps()
                                .withTimestampAssigner((event, previous) -> event.f1),
                        name)
                .setParallelism(1);
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

    /** The last event goes when it is due (at once if it already waits). */
    public static void releaseLastEvent(String runId) {
        lastEventReleased(runId).complete(null);
    }

    private static CompletableFuture<Void> lastEventReleased(String runId) {
        return LAST_EVENT_RELEASED.computeIfAbsent(runId, id -> new CompletableFuture<>());
    }

    /** Marks the last event due once the one before it is generated. */
    private static final class Generator
            implements GeneratorFunction<Long, Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;
        private final String runId;
        private final long seed;
        private final long count;
        private final long millisPerEvent;
        private final int keys;

        Generator(String runId, long seed, long count, long millisPerEvent, int keys) {
            this.runId = runId;
            this.seed = seed;
            this.count = count;
            this.millisPerEvent = millisPerEvent;
            this.keys = keys;
        }

        @Override
        public Tuple3<Long, Long, Long> map(Long index) {
            if (index == count - 2) {
                LAST_EVENT_DUE.add(runId);
            }
            return Events.event(seed, index, millisPerEvent, keys);
        }
    }

    /** The rate limiter asks for a permit before each event: the holds wait there. */
    private static final class HeldRate implements RateLimiterStrategy<SourceSplit> {
        private static final long serialVersionUID = 1L;
        private final String runId;
        private final double eventsPerSecond;

        HeldRate(String runId, double eventsPerSecond) {
            this.runId = runId;
            this.eventsPerSecond = eventsPerSecond;
        }

        @SuppressWarnings("unchecked")
        @Override
        public RateLimiter<SourceSplit> createRateLimiter(int parallelism) {
            RateLimiter<SourceSplit> limited =
                    RateLimiterStrategy.perSecond(eventsPerSecond).createRateLimiter(parallelism);
            return permits -> {
                CompletableFuture<Void> held = PAUSED.getOrDefault(runId, DONE);
                if (LAST_EVENT_DUE.contains(runId)) {
                    held = held.thenCompose(v -> lastEventReleased(runId));
                }
                return held.thenCompose(v -> limited.acquire(permits).toCompletableFuture());
            };
        }
    }

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
}
