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

package io.rhino.handover;

import io.rhino.core.handover.HandoverCommand;
import io.rhino.core.handover.HandoverId;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * The side effects {@link HandoverDriver} decides on. The {@link HandoverManager} implements them
 * by queueing actions that run after its lock is released, in the order they were requested.
 */
interface HandoverEffects {

    /** Sends {@code command} to every router. */
    void sendToRouters(HandoverCommand command);

    /** Forwards shipped vnodes of handover {@code id} to {@code targetSubtask}. */
    void sendToTarget(int targetSubtask, HandoverId id, List<ShippedVnode> vnodes);

    /** Asks Flink to restart the job from its last checkpoint. */
    void failJob(HandoverFailedException cause);

    /** Completes a user's future. */
    void complete(CompletableFuture<HandoverResult> future, HandoverResult result);

    /** Lets a checkpoint begin. */
    void proceed(Runnable proceed);

    /**
     * Arranges for {@link HandoverDriver#onTimeout(HandoverId)} to be called after {@code
     * timeoutMillis}, under the manager's lock.
     *
     * @return the scheduled task, or null if the timer refused it
     */
    ScheduledFuture<?> scheduleTimeout(HandoverId id, long timeoutMillis);
}
