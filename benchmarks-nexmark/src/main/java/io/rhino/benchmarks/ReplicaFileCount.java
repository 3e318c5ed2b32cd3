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

package io.rhino.benchmarks;

import io.rhino.replication.store.ChangingFileTree;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.flink.api.common.JobID;

/**
 * The most replica files (SST files and manifests) of one job that the TaskManagers' stores under a
 * directory held at once, sampled every half second while the job runs: proof that a run said to
 * replicate did.
 */
final class ReplicaFileCount {

    private static final long PERIOD_MILLIS = 500;

    private final Path directory;
    private final String job;
    private final Thread sampler;
    private volatile long peak;

    private ReplicaFileCount(Path directory, JobID jobId) {
        this.directory = directory;
        this.job = jobId.toString();
        this.sampler = new Thread(this::sample, "replica-file-count " + job);
        sampler.setDaemon(true);
    }

    static ReplicaFileCount start(Path directory, JobID jobId) {
        ReplicaFileCount count = new ReplicaFileCount(directory, jobId);
        count.sampler.start();
        return count;
    }

    /** Stops sampling after one last count. */
    void stop() throws InterruptedException {
        sampler.interrupt();
        sampler.join();
        sampleOnce();
    }

    long peak() {
        return peak;
    }

    private void sample() {
        while (!Thread.currentThread().isInterrupted()) {
            sampleOnce();
            try {
                Thread.sleep(PERIOD_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void sampleOnce() {
        try {
            long now =
                    ChangingFileTree.regularFiles(directory).stream()
                            .filter(file -> file.toString().contains(job))
                            .map(file -> file.getFileName().toString())
                            .filter(name -> name.endsWith(".sst") || name.startsWith("MANIFEST"))
                            .count();
            peak = Math.max(peak, now);
        } catch (IOException e) {
            // an unreadable directory: the next sample counts again
        }
    }
}
