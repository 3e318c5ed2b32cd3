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

import io.rhino.benchmarks.nexmark.generator.EventTimestamps;
import io.rhino.benchmarks.nexmark.generator.GeneratorConfig;
import io.rhino.benchmarks.nexmark.generator.KeyDistribution;
import io.rhino.benchmarks.nexmark.generator.RateSchedule;
import io.rhino.benchmarks.nexmark.model.RecordSizes;
import java.time.Duration;

/**
 * The knobs of the NEXMark scenarios, from {@link NexmarkScenarios}' flags.
 *
 * @param query nbq5, nbq8 or nbqx
 * @param rate rate of each producer thread: {@code max}, {@code fixed:<MB/s>}, {@code varying} (the
 *     paper's 1 to 8 MB/s) or {@code varying:<max MB/s>} (the same pattern scaled to that maximum)
 * @param after how long a run continues after the reconfiguration
 * @param warmUp time before waiting for {@code checkpointsBefore} checkpoints
 * @param checkpointsBefore completed checkpoints before the reconfiguration (paper: 3)
 * @param checkpointInterval interval of the incremental checkpoints
 * @param stateSizeBytes fill the state to this size first (0: no fill)
 * @param maxParallelism keyed parallelism at full scale (paper: 64, here: one per TaskManager)
 * @param vnodes Rhino vnodes per keyed operator
 * @param rebalanceSubtasks subtasks that give half their vnodes away in load balancing
 * @param producerThreads generator threads
 * @param partitions partitions per topic
 * @param nbq8Window NBQ8's tumbling window
 * @param seed seed of the generator and of the vnode choice
 * @param backlogRecords input records written at the producer's full speed before the job starts
 *     (0: none); see {@link NexmarkWorkload}
 */
public record ScenarioSettings(
        String query,
        String rate,
        Duration after,
        Duration warmUp,
        int checkpointsBefore,
        Duration checkpointInterval,
        long stateSizeBytes,
        int maxParallelism,
        int vnodes,
        int rebalanceSubtasks,
        int producerThreads,
        int partitions,
        Duration nbq8Window,
        long seed,
        long backlogRecords) {

    /** Settings without a backlog. */
    public ScenarioSettings(
            String query,
            String rate,
            Duration after,
            Duration warmUp,
            int checkpointsBefore,
            Duration checkpointInterval,
            long stateSizeBytes,
            int maxParallelism,
            int vnodes,
            int rebalanceSubtasks,
            int producerThreads,
            int partitions,
            Duration nbq8Window,
            long seed) {
        this(
                query,
                rate,
                after,
                warmUp,
                checkpointsBefore,
                checkpointInterval,
                stateSizeBytes,
                maxParallelism,
                vnodes,
                rebalanceSubtasks,
                producerThreads,
                partitions,
                nbq8Window,
                seed,
                0);
    }

    /** The workload at full scale (every subtask active). */
    NexmarkWorkload workload() {
        return new NexmarkWorkload(
                query,
                rateSchedule(rate),
                backlogRecords > 0 ? backlogGenerator(query, seed) : generator(seed),
                producerThreads,
                partitions,
                maxParallelism,
                maxParallelism,
                vnodes,
                checkpointInterval,
                stateSizeBytes,
                nbq8Window,
                backlogRecords);
    }

    /** The paper's generator (proportions 1:3:46, uniform keys, paper sizes) on the wall clock. */
    static GeneratorConfig generator(long seed) {
        return new GeneratorConfig(
                seed,
                1,
                3,
                46,
                KeyDistribution.UNIFORM,
                0,
                0,
                new RecordSizes(206, 269, 32),
                EventTimestamps.wallClock());
    }

    /**
     * The generator of a run that starts behind a backlog: NBQ8 reads only persons and auctions, so
     * its backlog holds only those (in the paper's proportion 1:3), not the bids that would be 59%
     * of the bytes written and none of the records it reads; the other queries read bids, which
     * need persons and auctions, and keep the paper's mix.
     */
    static GeneratorConfig backlogGenerator(String query, long seed) {
        GeneratorConfig paper = generator(seed);
        return query.equalsIgnoreCase("nbq8")
                ? paper.withProportions(paper.persons(), paper.auctions(), 0)
                : paper;
    }

    /** Parses a rate flag value. */
    public static RateSchedule rateSchedule(String value) {
        if (value.equals("max")) {
            return RateSchedule.max();
        }
        if (value.equals("varying")) {
            return RateSchedule.paperVarying();
        }
        if (value.startsWith("varying:")) {
            double max = Double.parseDouble(value.substring(8)) * 1e6;
            // the paper's 1 to 8 MB/s in steps of 0.5 MB/s every 10 s, scaled to max
            return new RateSchedule.VaryingRate(max / 8, max / 16, max, Duration.ofSeconds(10));
        }
        if (value.startsWith("fixed:")) {
            return RateSchedule.fixed(Double.parseDouble(value.substring(6)) * 1e6);
        }
        throw new IllegalArgumentException(
                "rate is max, fixed:<MB/s>, varying or varying:<max MB/s>, not " + value);
    }
}
