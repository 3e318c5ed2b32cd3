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

package io.rhino.replication;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waiting for a replication round from a task's thread. A caller that stops waiting (its timeout
 * passed, or the thread was interrupted because Flink cancelled the task or aborted the checkpoint)
 * cancels the round, so its files stop going out and do not hold up the next round's on the same
 * connections.
 */
public final class RoundWait {

    private RoundWait() {}

    /** Waits up to {@code timeoutMillis} for {@code round}; cancels it if the wait ends early. */
    public static void await(CompletableFuture<Void> round, long timeoutMillis)
            throws InterruptedException, ExecutionException, TimeoutException {
        try {
            round.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException | TimeoutException e) {
            round.cancel(false);
            throw e;
        }
    }
}
