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

package io.rhino.flink.replication;

import java.io.Serializable;

/**
 * Where one gate subtask's checkpoint replication stands, as the subtask reports it.
 *
 * @param lastCheckpoint the newest checkpoint the whole chain acked, -1 if none yet in this attempt
 * @param ageMillis how long ago that checkpoint's replication ended, when this was reported (-1 if
 *     none); ages rather than timestamps, so that no two clocks are compared
 * @param lastCheckpointBytes bytes sent to the chain for that checkpoint
 * @param totalBytes bytes sent to the chain by this attempt
 * @param lastRoundMillis how long that checkpoint's replication took (its snapshot waited for it)
 * @param failedRounds replications that failed in this attempt (their checkpoints were declined)
 * @param lastFailure the cause of the newest failure, null if none
 */
public record ReplicationProgress(
        long lastCheckpoint,
        long ageMillis,
        long lastCheckpointBytes,
        long totalBytes,
        long lastRoundMillis,
        long failedRounds,
        String lastFailure)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /** This report as seen {@code laterMillis} after it was made. */
    public ReplicationProgress agedBy(long laterMillis) {
        return lastCheckpoint < 0
                ? this
                : new ReplicationProgress(
                        lastCheckpoint,
                        ageMillis + Math.max(0, laterMillis),
                        lastCheckpointBytes,
                        totalBytes,
                        lastRoundMillis,
                        failedRounds,
                        lastFailure);
    }
}
