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

package io.rhino.benchmarks.scenarios;

import io.rhino.benchmarks.harness.LatencyReport;
import io.rhino.benchmarks.harness.LatencyStats;
import io.rhino.benchmarks.harness.PhaseTimings;
import io.rhino.benchmarks.harness.Scenario;
import io.rhino.benchmarks.harness.ScenarioContext;
import io.rhino.benchmarks.harness.ScenarioResult;
import io.rhino.benchmarks.harness.SustainableRateSearch;
import io.rhino.benchmarks.harness.SystemUnderTest;
import io.rhino.benchmarks.harness.ThroughputReport;
import io.rhino.benchmarks.nexmark.generator.EventKind;
import io.rhino.benchmarks.nexmark.generator.RateSchedule;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The maximum sustainable throughput of a system (§5.4: the highest generator rate at which the job
 * keeps up): runs the workload in steps of a fixed rate chosen by a {@link SustainableRateSearch}
 * and judges each step by its second half: the median p99 latency stays under a bound, the
 * generator made the rate, and the job consumed at least 95% of what was produced to the topics it
 * reads. After a step that fell behind, the generator nearly pauses until the backlog is gone.
 * Writes one row per step to {@code steps-<sut>.csv}; the result carries the rate found.
 *
 * @param name scenario name
 * @param group row of the summary table
 * @param workload the workload; its rate is replaced by each step's
 * @param startMegabytesPerSecond the first rate probed, all generator threads together
 * @param step how long each rate runs
 * @param latencyBound p99 latency (median over the step's second half) a sustained step stays under
 * @param maxSteps step budget
 */
public record MaxThroughputScenario(
        String name,
        String group,
        NexmarkWorkload workload,
        double startMegabytesPerSecond,
        Duration step,
        Duration latencyBound,
        int maxSteps)
        implements Scenario {

    /** Figure of the summary table: the highest generator rate sustained, all threads together. */
    public static final String MAX_SUSTAINABLE = "max sustainable (MB/s)";

    /** Figure of the summary table: what the query consumed at that rate. */
    public static final String CONSUMED_AT_MAX = "consumed at max (MB/s)";

    private static final Logger LOG = LoggerFactory.getLogger(MaxThroughputScenario.class);
    private static final double PRECISION = 0.1;
    private static final Duration CATCH_UP_TIMEOUT = Duration.ofMinutes(3);

    @Override
    public Duration expectedDuration() {
        return step.multipliedBy(maxSteps).plusSeconds(20);
    }

    @Override
    public ScenarioResult run(SystemUnderTest sut, ScenarioContext context) throws Exception {
        if (!(sut instanceof NexmarkSut nexmark)) {
            throw new UnsupportedOperationException(name + " runs on NEXMark systems only");
        }
        int threads = workload.producerThreads();
        double startPerThread = startMegabytesPerSecond * 1e6 / threads;
        sut.start(workload.withRate(RateSchedule.fixed(startPerThread)), context);
        context.markPhase(ScenarioContext.STEADY);
        KafkaFeed feed = nexmark.deployment().feed();
        Set<EventKind> inputKinds = QueryJobs.inputKinds(workload.query());
        SustainableRateSearch search =
                new SustainableRateSearch(startMegabytesPerSecond, PRECISION, maxSteps);
        RateStepCsv csv =
                new RateStepCsv(context.outputDir().resolve("steps-" + sut.name() + ".csv"));
        RateStep atMax = null;
        for (OptionalDouble rate = search.nextRate(); rate.isPresent(); rate = search.nextRate()) {
            RateStep result = runStep(context, feed, inputKinds, rate.getAsDouble(), threads);
            search.record(result.sustained());
            csv.append(sut.name(), context.repetition(), result);
            LOG.info(
                    "{}: {} MB/s {} (produced {} MB/s, consumed {} MB/s = {} of {} rec/s,"
                            + " median p99 {} ms)",
                    sut.name(),
                    format(result.targetMegabytesPerSecond()),
                    result.sustained() ? "sustained" : "NOT sustained",
                    format(result.producedMegabytesPerSecond()),
                    format(result.consumedMegabytesPerSecond()),
                    Math.round(result.consumedRecordsPerSecond()),
                    Math.round(result.producedInputRecordsPerSecond()),
                    result.medianP99Ms());
            if (result.sustained()
                    && (atMax == null
                            || result.targetMegabytesPerSecond()
                                    > atMax.targetMegabytesPerSecond())) {
                atMax = result;
            }
            context.reportProgress((double) search.steps().size() / maxSteps);
            if (!result.sustained() && !search.done()) {
                // nearly pause the generator: the backlog must drain, and the best rate so far
                // may itself be only just sustainable
                double calm = search.steps().get(0).rate() / 4;
                feed.switchRate(RateSchedule.fixed(calm * 1e6 / threads));
                Backlog.awaitCaughtUp(
                        sut.name() + ": the backlog of " + format(rate.getAsDouble()) + " MB/s",
                        context.latency(),
                        latencyBound,
                        Backlog.consumedAsProduced(
                                () -> feed.producedRecords(inputKinds), context.throughput()),
                        CATCH_UP_TIMEOUT);
            }
        }
        context.reportProgress(1);
        if (atMax == null) {
            LOG.warn("{}: no rate sustained: {}", sut.name(), search.steps());
            return ScenarioResult.of(group, PhaseTimings.none());
        }
        return new ScenarioResult(
                group,
                Map.of(),
                Map.of(
                        MAX_SUSTAINABLE,
                        atMax.targetMegabytesPerSecond(),
                        CONSUMED_AT_MAX,
                        atMax.consumedMegabytesPerSecond()));
    }

    private RateStep runStep(
            ScenarioContext context,
            KafkaFeed feed,
            Set<EventKind> inputKinds,
            double rate,
            int threads)
            throws InterruptedException {
        feed.switchRate(RateSchedule.fixed(rate * 1e6 / threads));
        Thread.sleep(step.toMillis() / 2);
        // judge the second half only: the first lets the job settle at the new rate
        long judgedFrom = context.nowMillis();
        long producedBefore = feed.producedBytes();
        long inputBefore = feed.producedRecords(inputKinds);
        Thread.sleep(step.toMillis() - step.toMillis() / 2);
        long judgedTo = context.nowMillis();
        double seconds = (judgedTo - judgedFrom) / 1000.0;
        double produced = (feed.producedBytes() - producedBefore) / 1e6 / seconds;
        double producedInput = (feed.producedRecords(inputKinds) - inputBefore) / seconds;
        long fromSecond = (judgedFrom - context.startMillis()) / 1000 + 1;
        // the heartbeat closes a second up to a second late: leave the newest two out
        long toSecond = (judgedTo - context.startMillis()) / 1000 - 2;
        LatencyReport latency = context.latency().report();
        List<Long> p99s =
                latency.perSecond().stream()
                        .filter(s -> s.second() >= fromSecond && s.second() <= toSecond)
                        .map(LatencyReport.SecondLatency::stats)
                        .filter(stats -> !stats.isEmpty())
                        .map(LatencyStats::p99Ms)
                        .toList();
        ThroughputReport throughput = context.throughput().report();
        double consumedBytes = 0;
        double consumedRecords = 0;
        double consumedSeconds = 0;
        for (ThroughputReport.SecondThroughput s : throughput.perSecond()) {
            if (s.second() >= fromSecond && s.second() <= toSecond) {
                consumedBytes += s.bytes();
                consumedRecords += s.records();
                consumedSeconds += s.seconds();
            }
        }
        double consumed = consumedSeconds > 0 ? consumedRecords / consumedSeconds : 0;
        boolean sustained =
                SustainableRateSearch.sustained(p99s, latencyBound.toMillis())
                        // a generator that cannot produce the rate has not shown it sustained
                        && produced >= 0.9 * rate
                        // a job that reads less than is produced falls behind, even while its
                        // latency still looks good
                        && consumed >= 0.95 * producedInput;
        return new RateStep(
                rate,
                produced,
                consumedSeconds > 0 ? consumedBytes / 1e6 / consumedSeconds : 0,
                producedInput,
                consumed,
                SustainableRateSearch.median(p99s).orElse(-1),
                sustained);
    }

    static String format(double megabytesPerSecond) {
        return String.format(Locale.ROOT, "%.3f", megabytesPerSecond);
    }
}
