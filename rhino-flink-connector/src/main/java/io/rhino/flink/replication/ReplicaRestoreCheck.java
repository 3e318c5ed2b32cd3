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
import java.time.Duration;

/**
 * When a restore from replicas reads their files to compare them with the checksums they were
 * stored with: before the vnodes open, or after, once {@code delayAfterOpen} has passed since the
 * subtask's restore and at most {@code bytesPerSecond} ({@code 0}: the disk's speed), so that the
 * check leaves the disk and the cores to the subtask's catch-up.
 */
public record ReplicaRestoreCheck(boolean beforeOpen, Duration delayAfterOpen, long bytesPerSecond)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Every stored file checked before its vnode opens. */
    public static final ReplicaRestoreCheck BEFORE_OPEN =
            new ReplicaRestoreCheck(true, Duration.ZERO, 0);

    /** Checked right after the open, at the disk's speed. */
    public static final ReplicaRestoreCheck AFTER_OPEN_AT_ONCE = afterOpen(Duration.ZERO, 0);

    public ReplicaRestoreCheck {
        if (delayAfterOpen == null || delayAfterOpen.isNegative()) {
            throw new IllegalArgumentException(
                    "delay after the open must be >= 0: " + delayAfterOpen);
        }
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("bytes per second must be >= 0: " + bytesPerSecond);
        }
    }

    /**
     * Checked after the open, {@code delay} later, at most {@code bytesPerSecond} (0: unlimited).
     */
    public static ReplicaRestoreCheck afterOpen(Duration delay, long bytesPerSecond) {
        return new ReplicaRestoreCheck(false, delay, bytesPerSecond);
    }
}
