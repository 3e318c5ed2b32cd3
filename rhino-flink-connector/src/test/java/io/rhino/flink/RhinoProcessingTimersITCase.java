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

import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Processing-time timers of moved vnodes fire at the target on time: on a standby subtask that had
 * no timers (so no wake-up scheduled), and on a subtask whose own timers are due much later (so its
 * wake-up is far away).
 */
class RhinoProcessingTimersITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = RhinoClusters.twoTaskManagers();

    private static final String OPERATOR = "timers";
    private static final int KEY_GROUPS = 128;
    private static final int VNODES = 8;
    private static final int KEYS = 64;
    private static final long PERIOD_MILLIS = 700;
    private static final long FAR_AWAY_MILLIS = Duration.ofMinutes(10).toMillis();

    /** How late a timer may fire on a busy two-core machine; a missed wake-up is minutes late. */
    private static final long ON_TIME_MILLIS = 1_000;

    @Test
    @Timeout(120)
    void timersOfMovedVnodesFireOnTimeAtTheirTarget() throws Exception {
        // Three subtasks, two active: subtask 0 owns vnodes 0-3, subtask 1 owns 4-7, subtask 2 is
        // a standby. Keys on subtask 0 fire every PERIOD; keys on subtask 1 wait ten minutes.
        RoutingTable initial = RoutingTable.initial(new VnodeLayout(KEY_GROUPS, VNODES), 3, 2);
        Set<Long> periodic = keysOwnedBy(initial, 0);
        Set<Long> farAway = keysOwnedBy(initial, 1);
        Set<Long> toStandby = keysOf(initial, vnode -> vnode == 0 || vnode == 1);
        Set<Long> toBusyTarget = keysOf(initial, vnode -> vnode == 2 || vnode == 3);
        assertThat(List.of(toStandby, toBusyTarget, farAway)).allMatch(keys -> !keys.isEmpty());

        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(
                        RhinoClusters.jobConfig(Mode.RHINO));
        env.setParallelism(3);
        String runId = "processing-timers-" + UUID.randomUUID();
        DataStream<Long> keys =
                env.fromSource(
                                new DataGeneratorSource<>(
                                        index -> index % KEYS,
                                        Long.MAX_VALUE,
                                        RateLimiterStrategy.perSecond(200),
                                        Types.LONG),
                                WatermarkStrategy.noWatermarks(),
                                "keys")
                        .setParallelism(1);
        RhinoStreams.keyBy(
                        keys,
                        new Identity(),
                        RhinoKeyedStreamOptions.builder(OPERATOR)
                                .keyGroups(KEY_GROUPS)
                                .vnodes(VNODES)
                                .activeParallelism(2)
                                .stateTransfer(new LocalDirectoryStateTransfer())
                                .handoverTimeout(Duration.ofSeconds(30))
                                .build())
                .process(new PeriodicTimers(farAway))
                .sinkTo(new ResultSink(runId));
        JobClient job = env.executeAsync("processing-timers");
        JobID jobId = job.getJobID();
        try {
            HandoverManager manager =
                    RhinoHandovers.awaitReady(jobId, OPERATOR, Duration.ofSeconds(60));
            assertThat(manager.routingTable()).isEqualTo(initial);
            awaitFirings(runId, periodic, 2, Duration.ofSeconds(30));

            long start = System.currentTimeMillis();
            HandoverResult result =
                    manager.handover(
                                    List.of(
                                            new VnodeMove(0, 0, 2),
                                            new VnodeMove(1, 0, 2),
                                            new VnodeMove(2, 0, 1),
                                            new VnodeMove(3, 0, 1)))
                            .get(60, TimeUnit.SECONDS);
            long done = System.currentTimeMillis();
            assertThat(result.outcome())
                    .as("handover: %s", result.failureCause())
                    .isEqualTo(HandoverResult.Outcome.COMPLETED);
            Thread.sleep(4 * PERIOD_MILLIS + ON_TIME_MILLIS);

            Map<Long, List<Firing>> firings = firingsByKey(ResultSink.lines(runId));
            assertThat(firings.keySet())
                    .as("keys whose timers lie ten minutes ahead")
                    .doesNotContainAnyElementsOf(farAway);
            checkFireOnTimeAfterTheMove(
                    "moved to the standby subtask", toStandby, firings, start, done);
            checkFireOnTimeAfterTheMove(
                    "moved to a subtask with later timers", toBusyTarget, firings, start, done);
        } finally {
            job.cancel().get();
        }
    }

    /**
     * Every key fires again after the handover, each timer exactly once and in sequence, and each
     * timer due from the handover's start on fires on time, or right after the install if it fell
     * due while its vnode was in transfer.
     */
    private static void checkFireOnTimeAfterTheMove(
            String what, Set<Long> keys, Map<Long, List<Firing>> firings, long start, long done) {
        for (long key : keys) {
            List<Firing> fired = firings.getOrDefault(key, List.of());
            assertThat(fired.stream().filter(f -> f.firedAt() > done).count())
                    .as("timers of key %s (%s) fired after the handover: %s", key, what, fired)
                    .isGreaterThanOrEqualTo(3);
            for (int i = 1; i < fired.size(); i++) {
                assertThat(fired.get(i).timer() - fired.get(i - 1).timer())
                        .as("consecutive timers of key %s (%s): %s", key, what, fired)
                        .isEqualTo(PERIOD_MILLIS);
            }
            for (Firing firing : fired) {
                if (firing.timer() >= start) {
                    assertThat(firing.firedAt() - Math.max(firing.timer(), done))
                            .as("lateness of %s, key %s (%s)", firing, key, what)
                            .isLessThan(ON_TIME_MILLIS);
                }
            }
        }
    }

    private static Set<Long> keysOwnedBy(RoutingTable table, int subtask) {
        return keysOf(table, vnode -> table.ownerOf(vnode) == subtask);
    }

    private static Set<Long> keysOf(RoutingTable table, Predicate<Integer> vnodes) {
        Set<Long> keys = new HashSet<>();
        for (long key = 0; key < KEYS; key++) {
            if (vnodes.test(table.layout().vnodeOfKey(key))) {
                keys.add(key);
            }
        }
        return keys;
    }

    private static void awaitFirings(String runId, Set<Long> keys, int count, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Map<Long, List<Firing>> firings = firingsByKey(ResultSink.lines(runId));
            if (keys.stream().allMatch(k -> firings.getOrDefault(k, List.of()).size() >= count)) {
                return;
            }
            assertThat(System.nanoTime())
                    .as("every periodic key fired %s times; fired so far: %s", count, firings)
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /** One timer firing: the key, the timer's timestamp and the processing time it fired at. */
    private record Firing(long key, long timer, long firedAt) {
        static Firing parse(String line) {
            String[] parts = line.split("\\|");
            return new Firing(
                    Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
        }
    }

    /** Firings per key, in timer order. */
    private static Map<Long, List<Firing>> firingsByKey(List<String> lines) {
        Map<Long, List<Firing>> byKey = new TreeMap<>();
        for (String line : lines) {
            Firing firing = Firing.parse(line);
            byKey.computeIfAbsent(firing.key(), key -> new ArrayList<>()).add(firing);
        }
        byKey.values().forEach(firings -> firings.sort(Comparator.comparingLong(Firing::timer)));
        return byKey;
    }

    private static final class Identity implements KeySelector<Long, Long> {
        @Override
        public Long getKey(Long key) {
            return key;
        }
    }

    /**
     * On a key's first record, registers a processing-time timer: ten minutes ahead for the given
     * keys, otherwise one period ahead, re-registered one period later each time it fires. Emits
     * {@code key|timer|firedAt} per firing.
     */
    private static final class PeriodicTimers extends KeyedProcessFunction<Long, Long, String> {
        private final Set<Long> farAwayKeys;
        private transient ValueState<Boolean> registered;

        PeriodicTimers(Set<Long> farAwayKeys) {
            this.farAwayKeys = new HashSet<>(farAwayKeys);
        }

        @Override
        public void open(OpenContext openContext) {
            registered =
                    getRuntimeContext()
                            .getState(new ValueStateDescriptor<>("registered", Types.BOOLEAN));
        }

        @Override
        public void processElement(Long key, Context ctx, Collector<String> out) throws Exception {
            // Later records of a key register nothing: a registration would schedule a wake-up
            // itself and hide a missing one.
            if (registered.value() == null) {
                registered.update(true);
                long now = ctx.timerService().currentProcessingTime();
                ctx.timerService()
                        .registerProcessingTimeTimer(
                                now
                                        + (farAwayKeys.contains(key)
                                                ? FAR_AWAY_MILLIS
                                                : PERIOD_MILLIS));
            }
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out) {
            out.collect(
                    ctx.getCurrentKey()
                            + "|"
                            + timestamp
                            + "|"
                            + ctx.timerService().currentProcessingTime());
            ctx.timerService().registerProcessingTimeTimer(timestamp + PERIOD_MILLIS);
        }
    }
}
