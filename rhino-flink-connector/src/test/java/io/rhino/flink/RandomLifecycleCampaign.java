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

import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.handover.LocalDirectoryStateTransfer;
import io.rhino.flink.testjobs.FailOnDemand;
import io.rhino.flink.testjobs.ResultSink;
import io.rhino.flink.testjobs.TestPipelines;
import io.rhino.flink.testjobs.TestPipelines.Input;
import io.rhino.flink.testjobs.TestPipelines.Mode;
import io.rhino.flink.testjobs.TestPipelines.RhinoSetup;
import io.rhino.flink.testjobs.Upserts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A deterministic job (sliding, session and tumbling event-time windows, a keyed process function
 * with timers, a window join) on three TaskManagers while a seeded driver interleaves random
 * lifecycle operations ({@link LifecycleDriver}): handovers, native and canonical savepoints, task
 * failures at the source or the sink, cancel + restore from the latest savepoint or retained
 * checkpoint, stop-with-savepoint + resubmit at a random parallelism from 1 to 6 (one the savepoint
 * allows) and, where the subclass's cluster runs the adaptive scheduler, rescales in place through
 * Flink's resource requirements. The results of all runs, read as an idempotent sink keyed by
 * result id stores them, must be exactly plain Flink's: a second value for an id, a missing or an
 * extra result fails, printed with the seed and the history.
 *
 * <p>Runs once with aligned and once with unaligned checkpoints. {@code mvn verify} runs a smoke
 * with a fixed seed, so that a red build replays; {@code -Plifecycle} runs 500 operations with a
 * new seed each time ({@code -Drhino.lifecycle.operations=N} any other number, {@code
 * -Drhino.test.seed=S} to replay a seed, {@code -Drhino.test.seed=random} for a new one, {@code
 * -Drhino.lifecycle.unaligned=true} or {@code false} to run one mode).
 */
abstract class RandomLifecycleCampaign {

    /** Whether the cluster the subclass registered runs the adaptive scheduler. */
    abstract boolean adaptiveScheduler();

    /** The operations of the smoke {@code mvn verify} runs. */
    abstract int smokeOperations();

    /** Whether {@code mvn verify}'s smoke runs the mode; {@code -Plifecycle} runs both. */
    abstract boolean inSmoke(boolean unaligned);

    private static final int EVENTS_PER_SECOND = 500;
    private static final int VNODES = 8;

    @TempDir Path checkpoints;
    @TempDir Path savepoints;

    private static final long SMOKE_SEED = 20261122L;

    @ParameterizedTest(name = "unaligned checkpoints: {0}")
    @ValueSource(booleans = {false, true})
    void randomLifecycleOperationsKeepExactlyOnce(
            boolean unaligned, @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        // -Drhino.lifecycle.unaligned=true|false runs one mode, so that a long campaign can run
        // each mode in its own JVM
        String only = System.getProperty("rhino.lifecycle.unaligned", "");
        Assumptions.assumeTrue(
                only.isBlank() || Boolean.parseBoolean(only) == unaligned,
                "only unaligned checkpoints: " + only);
        String operationsProperty = System.getProperty("rhino.lifecycle.operations", "");
        Assumptions.assumeTrue(
                !operationsProperty.isBlank() || inSmoke(unaligned),
                "a campaign variant (-Plifecycle)");
        int operations =
                operationsProperty.isBlank()
                        ? smokeOperations()
                        : Integer.parseInt(operationsProperty);
        long seed = seed();
        // about 4 s of input per operation: the operations end before the input does, and the
        // rest is read without a rate limit (see LifecycleDriver#finishUnlimited)
        Input input = new Input(operations * 2_000L, 97, EVENTS_PER_SECOND, 2);
        Map<String, String> reference =
                Upserts.of(RhinoEquivalenceITCase.run(Mode.PLAIN, input.unlimited(), 8));

        LifecycleDriver driver =
                new LifecycleDriver(
                        miniCluster,
                        adaptiveScheduler()
                                ? new RestCalls(miniCluster.getRestAddress().get().toString(), null)
                                : null,
                        (runId, restorePath, unlimited, parallelism) ->
                                submit(
                                        unlimited ? input.unlimited() : input,
                                        runId,
                                        restorePath,
                                        unaligned,
                                        parallelism),
                        TestPipelines.RHINO_OPERATORS,
                        checkpoints,
                        savepoints,
                        seed,
                        new VnodeLayout(RhinoOptions.KEY_GROUPS.defaultValue(), VNODES),
                        3,
                        6);
        String context =
                "seed "
                        + seed
                        + (unaligned ? ", unaligned checkpoints" : "")
                        + (adaptiveScheduler() ? ", adaptive scheduler" : "");
        int ran;
        try {
            driver.start();
            ran = driver.run(operations);
            driver.finishUnlimited();
        } catch (Throwable t) {
            throw new AssertionError(
                    context + ", history:\n" + String.join("\n", driver.history()), t);
        }
        System.out.printf(
                "Lifecycle run (%s): %d operations, outcomes %s, %d job runs%nHistory:%n%s%n",
                context,
                ran,
                driver.countByOutcome(),
                driver.runIds().size(),
                String.join("\n", driver.history()));

        List<String> lines = new ArrayList<>();
        driver.runIds().forEach(runId -> lines.addAll(ResultSink.take(runId)));
        Map<String, String> actual = Upserts.of(lines);
        TreeSet<String> missing = new TreeSet<>(reference.keySet());
        missing.removeAll(actual.keySet());
        TreeSet<String> extra = new TreeSet<>(actual.keySet());
        extra.removeAll(reference.keySet());
        TreeMap<String, String> wrong = new TreeMap<>();
        reference.forEach(
                (id, value) -> {
                    if (actual.containsKey(id) && !actual.get(id).equals(value)) {
                        wrong.put(id, actual.get(id) + " (expected " + value + ")");
                    }
                });
        String report =
                context
                        + ": "
                        + missing.size()
                        + " missing (e.g. "
                        + first(missing)
                        + "), "
                        + extra.size()
                        + " extra (e.g. "
                        + first(extra)
                        + "), "
                        + wrong.size()
                        + " wrong (e.g. "
                        + first(wrong.entrySet())
                        + "); history:\n"
                        + String.join("\n", driver.history());
        assertThat(missing.isEmpty() && extra.isEmpty() && wrong.isEmpty()).as(report).isTrue();
        assertThat(ran)
                .as("operations before the input ended (%s)", context)
                .isGreaterThanOrEqualTo(Math.min(operations, smokeOperations()));
        if (adaptiveScheduler()) {
            assertThat(driver.countByOutcome())
                    .as("adaptive rescales that ran (%s)", context)
                    .containsKey(LifecycleDriver.Operation.ADAPTIVE_RESCALE + " rescaled in place");
        }
    }

    private static long seed() {
        String seed = System.getProperty("rhino.test.seed", "");
        if (seed.isBlank()) {
            return SMOKE_SEED;
        }
        return seed.equals("random") ? System.nanoTime() : Long.parseLong(seed);
    }

    private static String first(java.util.Collection<?> items) {
        return items.stream().limit(3).toList().toString();
    }

    private JobID submit(
            Input input, String runId, String restorePath, boolean unaligned, int parallelism)
            throws Exception {
        Configuration config = RhinoClusters.jobConfig(Mode.RHINO);
        RhinoClusters.withCheckpoints(config, checkpoints, Duration.ofMillis(300));
        RhinoClusters.withRestarts(config, 1_000, Duration.ofMillis(100));
        config.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        config.set(CheckpointingOptions.ENABLE_UNALIGNED, unaligned);
        if (restorePath != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, restorePath);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        build(env, input, runId, parallelism);
        return env.executeAsync(runId).getJobID();
    }

    /**
     * The campaign's job at {@code parallelism}: its operators' ids must not depend on it, or a
     * restore at another parallelism would find state of operators it does not have.
     */
    static void build(StreamExecutionEnvironment env, Input input, String runId, int parallelism) {
        env.setParallelism(parallelism);
        TestPipelines.build(
                        env,
                        Mode.RHINO,
                        input,
                        new RhinoSetup(
                                VNODES,
                                // two active at first; a restore spreads the vnodes over all
                                Math.min(2, parallelism),
                                new LocalDirectoryStateTransfer(),
                                Duration.ofSeconds(30)),
                        events -> events.map(new FailOnDemand<>(runId)).uid("fail-events"))
                .map(new FailOnDemand<>(runId + "-sink"))
                .uid("fail-sink")
                .sinkTo(new ResultSink(runId))
                .uid("results");
    }
}
