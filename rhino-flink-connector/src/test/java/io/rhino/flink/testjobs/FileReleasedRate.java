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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;

/**
 * {@link ReleasableRate} for jobs in other processes: a fixed rate until a marker file exists, then
 * unlimited. A process-cluster test gives its job more input than its checks can need and releases
 * it once they are done, so the job neither ends under a slow check nor reads on after the last.
 */
public final class FileReleasedRate implements RateLimiterStrategy<SourceSplit> {

    private static final long serialVersionUID = 1L;

    /** How often the source looks for the marker: a file system call per record would cost. */
    private static final long LOOK_EVERY_NANOS = 200_000_000L;

    private final String marker;
    private final double eventsPerSecond;

    public FileReleasedRate(Path marker, double eventsPerSecond) {
        this.marker = marker.toAbsolutePath().toString();
        this.eventsPerSecond = eventsPerSecond;
    }

    /** From now on every source of a job built with {@code marker} emits at full speed. */
    public static void release(Path marker) {
        try {
            Files.createDirectories(marker.toAbsolutePath().getParent());
            if (!Files.exists(marker)) {
                Files.createFile(marker);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public RateLimiter<SourceSplit> createRateLimiter(int parallelism) {
        RateLimiter<SourceSplit> limited =
                RateLimiterStrategy.<SourceSplit>perSecond(eventsPerSecond)
                        .createRateLimiter(parallelism);
        Path released = Path.of(marker);
        return new RateLimiter<>() {
            private boolean free;
            private long lookedAt = System.nanoTime() - LOOK_EVERY_NANOS;

            @Override
            public CompletableFuture<Void> acquire(int permits) {
                if (!free && System.nanoTime() - lookedAt >= LOOK_EVERY_NANOS) {
                    lookedAt = System.nanoTime();
                    free = Files.exists(released);
                }
                return free
                        ? CompletableFuture.completedFuture(null)
                        : limited.acquire(permits).toCompletableFuture();
            }
        };
    }
}
