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

import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits while the generator produces at its maximum rate until the job's latest completed
 * checkpoint holds the target state size (NBQ8's windows only grow within a window, so its state
 * grows append-only), logging progress.
 */
final class StateFill {

    private static final Logger LOG = LoggerFactory.getLogger(StateFill.class);

    private final Deployment deployment;
    private final long targetBytes;
    private final String sut;

    StateFill(Deployment deployment, long targetBytes, String sut) {
        this.deployment = deployment;
        this.targetBytes = targetBytes;
        this.sut = sut;
    }

    /** A check that may ask the cluster. */
    private interface Condition {
        boolean holds() throws Exception;
    }

    /** Waits until the latest checkpoint holds the target size (a fill through Kafka). */
    void await() throws Exception {
        long start = System.currentTimeMillis();
        awaitLogging(
                () -> deployment.latestCheckpointStateSize() >= targetBytes,
                "filling through Kafka",
                start);
        LOG.info(
                "{}: state filled to {} in {} s ({} produced)",
                sut,
                gigabytes(deployment.latestCheckpointStateSize()),
                (System.currentTimeMillis() - start) / 1000,
                gigabytes(deployment.feed().producedBytes()));
    }

    /**
     * Waits until the job's fill sources ({@link InJobFill}) have emitted everything, then until a
     * checkpoint after that completes; logs the state size it reports.
     */
    void awaitInJobFill() throws Exception {
        long start = System.currentTimeMillis();
        awaitLogging(
                () -> deployment.sourcesFinished(InJobFill.SOURCE_PREFIX),
                "filling in the job",
                start);
        long filledAt = System.currentTimeMillis();
        while (deployment.latestCheckpointTriggeredMillis() < filledAt) {
            Thread.sleep(200);
        }
        LOG.info(
                "{}: state filled in the job to {} in {} s",
                sut,
                gigabytes(deployment.latestCheckpointStateSize()),
                (System.currentTimeMillis() - start) / 1000);
    }

    /** Polls {@code done} every second; every 10 s logs the checkpointed size, rate and ETA. */
    private void awaitLogging(Condition done, String what, long start) throws Exception {
        long lastLog = start;
        while (!done.holds()) {
            Thread.sleep(1000);
            long now = System.currentTimeMillis();
            if (now - lastLog >= 10_000) {
                lastLog = now;
                long size = deployment.latestCheckpointStateSize();
                LOG.info(
                        "{}: {}, checkpointed state {} of about {} after {} s{}",
                        sut,
                        what,
                        gigabytes(size),
                        gigabytes(targetBytes),
                        (now - start) / 1000,
                        eta(size, now - start));
            }
        }
    }

    private static String gigabytes(long bytes) {
        return String.format(Locale.ROOT, "%.2f GB", bytes / (double) (1L << 30));
    }

    /** ", ETA 12m30s" at the average rate so far; empty before anything was checkpointed. */
    private String eta(long size, long elapsedMillis) {
        if (size <= 0 || size >= targetBytes) {
            return "";
        }
        long seconds = (long) ((targetBytes - size) * (elapsedMillis / 1000.0) / size);
        return String.format(
                Locale.ROOT,
                ", %.1f MB/s, ETA %dm%02ds",
                size / 1e6 / (elapsedMillis / 1000.0),
                seconds / 60,
                seconds % 60);
    }
}
