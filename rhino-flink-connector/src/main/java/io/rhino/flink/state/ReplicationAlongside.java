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

package io.rhino.flink.state;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * A checkpoint's replication, run on a thread of its own while the vnodes' snapshots upload on the
 * checkpoint's asynchronous thread: the checkpoint takes the longer of the two instead of their
 * sum. The captured files are secured before it starts, as the vnodes' snapshots delete theirs when
 * they end.
 */
final class ReplicationAlongside {

    private final FutureTask<Void> round;
    private final Thread thread;

    private ReplicationAlongside(FutureTask<Void> round, Thread thread) {
        this.round = round;
        this.thread = thread;
    }

    /** Secures the captured files on the calling thread, then starts replicating them. */
    static ReplicationAlongside start(VnodeReplication.Capture capture, String name)
            throws Exception {
        capture.secure();
        FutureTask<Void> round =
                new FutureTask<>(
                        () -> {
                            capture.replicate();
                            return null;
                        });
        Thread thread = new Thread(round, name);
        thread.setDaemon(true);
        thread.start();
        return new ReplicationAlongside(round, thread);
    }

    /** Waits until every copy is stored and verified; throws the replication's failure. */
    void await() throws Exception {
        try {
            round.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception failure) {
                throw failure;
            }
            throw e;
        }
    }

    /**
     * Interrupts the replication and waits until its thread ended, even if this thread is
     * interrupted meanwhile: the captured files are deleted next, and must not be in use.
     */
    void stop() {
        round.cancel(true);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
