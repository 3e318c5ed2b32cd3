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

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPhase;

/** The messages of refused handover requests: what is in the way and what to do. */
final class Refusals {

    private Refusals() {}

    static IllegalStateException closed(String operatorName) {
        return new IllegalStateException(
                "handover manager of operator '"
                        + operatorName
                        + "' is CLOSED (expected: open); no handover can start");
    }

    static HandoverRejectedException idTaken(HandoverId id, String operatorName) {
        return new HandoverRejectedException(
                HandoverRejectedException.Reason.ID_TAKEN,
                "handover id "
                        + id
                        + " is already used on operator '"
                        + operatorName
                        + "'; pick another id",
                null);
    }

    static HandoverRejectedException running(
            HandoverId running, HandoverPhase phase, String operatorName) {
        return new HandoverRejectedException(
                HandoverRejectedException.Reason.BUSY,
                "handover "
                        + running
                        + " is in phase "
                        + phase
                        + " on operator '"
                        + operatorName
                        + "'; wait for it to finish (GET its status) and retry",
                running);
    }

    static HandoverRejectedException queueFull(
            HandoverId lastQueued, String checkpoint, int maxQueued, String operatorName) {
        return new HandoverRejectedException(
                HandoverRejectedException.Reason.CHECKPOINT,
                "handover "
                        + lastQueued
                        + " is queued behind checkpoint "
                        + checkpoint
                        + " on operator '"
                        + operatorName
                        + "' (at most "
                        + maxQueued
                        + " may wait); wait for it to finish (GET its status) and retry",
                lastQueued);
    }

    static HandoverRejectedException noQueue(String checkpoint, String operatorName) {
        return new HandoverRejectedException(
                HandoverRejectedException.Reason.CHECKPOINT,
                "checkpoint "
                        + checkpoint
                        + " is in flight on operator '"
                        + operatorName
                        + "' and no handover may wait for it (maxQueued=0); retry when it ended",
                null);
    }

    static HandoverRejectedException suspended(String reason, String operatorName) {
        return new HandoverRejectedException(
                HandoverRejectedException.Reason.SUSPENDED,
                "operator '"
                        + operatorName
                        + "' is not running all its subtasks ("
                        + reason
                        + "); nothing changed, retry once the job runs again",
                null);
    }

    static HandoverRejectedException inputEnded(String reason, String operatorName) {
        return new HandoverRejectedException(
                HandoverRejectedException.Reason.INPUT_ENDED,
                "the input of operator '"
                        + operatorName
                        + "' ended ("
                        + reason
                        + "); no handover can run any more",
                null);
    }
}
