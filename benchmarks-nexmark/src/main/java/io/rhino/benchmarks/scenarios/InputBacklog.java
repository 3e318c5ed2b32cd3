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

import io.rhino.benchmarks.nexmark.generator.EventKind;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A backlog written before the job starts: the producer runs at its full speed until the topics
 * hold the workload's {@link NexmarkWorkload#backlogRecords} records of the kinds the query reads,
 * then continues at the workload's rate. A job started behind it reads as fast as it can while the
 * generator, which shares the cores in this harness, is all but idle: its capacity, which a
 * generator that cannot outrun it (NBQ8) never shows.
 */
final class InputBacklog {

    private static final Logger LOG = LoggerFactory.getLogger(InputBacklog.class);

    private static final long PROGRESS_MILLIS = 10_000;

    private InputBacklog() {}

    /** Produces the backlog into {@code feed}, which has not started, and switches its rate. */
    static void write(KafkaFeed feed, NexmarkWorkload workload, String sut)
            throws InterruptedException {
        Set<EventKind> read = QueryJobs.inputKinds(workload.query());
        long target = workload.backlogRecords();
        long start = System.currentTimeMillis();
        long nextProgress = start + PROGRESS_MILLIS;
        feed.startProducing();
        while (feed.producedRecords(read) < target) {
            Thread.sleep(50);
            if (System.currentTimeMillis() >= nextProgress) {
                LOG.info(
                        "{}: writing the backlog, {} of {} records",
                        sut,
                        feed.producedRecords(read),
                        target);
                nextProgress += PROGRESS_MILLIS;
            }
        }
        feed.switchRate(workload.rate());
        long seconds = Math.max(1, (System.currentTimeMillis() - start) / 1000);
        LOG.info(
                "{}: backlog of {} records ({} MB in all topics) written in {} s; the job starts"
                        + " behind it",
                sut,
                feed.producedRecords(read),
                feed.producedBytes() / 1_000_000,
                seconds);
    }
}
