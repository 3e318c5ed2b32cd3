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

import io.rhino.benchmarks.harness.Workload;
import io.rhino.benchmarks.nexmark.generator.GeneratorConfig;
import io.rhino.benchmarks.nexmark.generator.RateSchedule;
import java.time.Duration;
import java.util.Locale;

/**
 * A NEXMark query read from Kafka, as a scenario asks a system under test to run it.
 *
 * @param query {@code nbq5}, {@code nbq8} or {@code nbqx}
 * @param rate the rate of each producer thread during the measured run
 * @param generator what the producer threads generate (creation timestamps must be wall-clock ones:
 *     latency is measured against them)
 * @param producerThreads generator threads writing to Kafka
 * @param partitions partitions of each topic (and parallelism of each Kafka source is 1)
 * @param maxParallelism deployed subtasks of a Rhino keyed operator (its maximum parallelism)
 * @param activeParallelism subtasks that own vnodes at start (Rhino) or the parallelism the plain
 *     Flink job starts with
 * @param vnodes Rhino vnodes per keyed operator
 * @param checkpointInterval interval of the incremental checkpoints
 * @param stateSizeBytes before the measured run, fill at maximum rate until the last completed
 *     checkpoint holds this much state; 0 for no fill
 * @param nbq8Window NBQ8's tumbling window (paper: 12 h)
 * @param backlogRecords before the job starts, records of the kinds the query reads that the
 *     producer writes at its full speed, so that the job starts behind this backlog and reads as
 *     fast as it can without the generator competing for the cores; 0 for none
 */
public record NexmarkWorkload(
        String query,
        RateSchedule rate,
        GeneratorConfig generator,
        int producerThreads,
        int partitions,
        int maxParallelism,
        int activeParallelism,
        int vnodes,
        Duration checkpointInterval,
        long stateSizeBytes,
        Duration nbq8Window,
        long backlogRecords)
        implements Workload {

    public NexmarkWorkload {
        query = query.toLowerCase(Locale.ROOT);
        if (!query.equals("nbq5") && !query.equals("nbq8") && !query.equals("nbqx")) {
            throw new IllegalArgumentException("query is nbq5, nbq8 or nbqx, not " + query);
        }
        if (activeParallelism < 1 || activeParallelism > maxParallelism) {
            throw new IllegalArgumentException(
                    "need 1 <= active parallelism <= max parallelism, got "
                            + activeParallelism
                            + "/"
                            + maxParallelism);
        }
        if (backlogRecords < 0) {
            throw new IllegalArgumentException("backlog records must be >= 0: " + backlogRecords);
        }
        if (backlogRecords > 0 && stateSizeBytes > 0) {
            throw new IllegalArgumentException(
                    "a backlog and a state fill exclude each other: the fill's own backlog is"
                            + " worked off before the measured run");
        }
        if (producerThreads < 1 || partitions < 1 || vnodes < maxParallelism) {
            throw new IllegalArgumentException(
                    "need producer threads and partitions >= 1 and vnodes >= max parallelism");
        }
    }

    /** A workload without a backlog. */
    public NexmarkWorkload(
            String query,
            RateSchedule rate,
            GeneratorConfig generator,
            int producerThreads,
            int partitions,
            int maxParallelism,
            int activeParallelism,
            int vnodes,
            Duration checkpointInterval,
            long stateSizeBytes,
            Duration nbq8Window) {
        this(
                query,
                rate,
                generator,
                producerThreads,
                partitions,
                maxParallelism,
                activeParallelism,
                vnodes,
                checkpointInterval,
                stateSizeBytes,
                nbq8Window,
                0);
    }

    @Override
    public String name() {
        return query;
    }

    /** The same workload with another starting active parallelism. */
    public NexmarkWorkload withActiveParallelism(int active) {
        return new NexmarkWorkload(
                query,
                rate,
                generator,
                producerThreads,
                partitions,
                maxParallelism,
                active,
                vnodes,
                checkpointInterval,
                stateSizeBytes,
                nbq8Window,
                backlogRecords);
    }

    /** The same workload with other keys for bids and auctions (e.g. Zipf-skewed). */
    public NexmarkWorkload withKeys(io.rhino.benchmarks.nexmark.generator.KeyDistribution keys) {
        return new NexmarkWorkload(
                query,
                rate,
                generator.withKeys(keys),
                producerThreads,
                partitions,
                maxParallelism,
                activeParallelism,
                vnodes,
                checkpointInterval,
                stateSizeBytes,
                nbq8Window,
                backlogRecords);
    }

    /** The same workload at another rate. */
    public NexmarkWorkload withRate(RateSchedule newRate) {
        return new NexmarkWorkload(
                query,
                newRate,
                generator,
                producerThreads,
                partitions,
                maxParallelism,
                activeParallelism,
                vnodes,
                checkpointInterval,
                stateSizeBytes,
                nbq8Window,
                backlogRecords);
    }
}
