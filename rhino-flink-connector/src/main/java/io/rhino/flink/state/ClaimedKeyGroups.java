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

import org.apache.flink.runtime.state.KeyGroupRange;

/**
 * The key groups a subtask's native snapshot handle claims. A handle must reach every subtask of a
 * restore at another parallelism, which Flink decides by intersecting the handle's range with each
 * new subtask's; each then takes the vnodes the rescaled routing table gives it. So the range spans
 * nearly all key groups. Yet no two handles of one checkpoint may claim the same range: with
 * task-local recovery Flink matches a restoring subtask's local copies to its handles by key group
 * range ({@code PrioritizedOperatorSubtaskState}), and two equal ranges fail the restore. Subtask
 * {@code i} therefore leaves out {@code i % s} key groups at the start and {@code i / s} at the
 * end, {@code s} the ceiling of the square root of the parallelism: distinct ranges that still meet
 * every new subtask's range of at least {@code s} key groups (with 32,768 key groups and up to 181
 * subtasks before and after, always).
 */
final class ClaimedKeyGroups {

    private ClaimedKeyGroups() {}

    static KeyGroupRange of(int subtaskIndex, int parallelism, int numKeyGroups) {
        int side = (int) Math.ceil(Math.sqrt(parallelism));
        int skippedAtStart = subtaskIndex % side;
        int skippedAtEnd = subtaskIndex / side;
        int start = skippedAtStart;
        int end = numKeyGroups - 1 - skippedAtEnd;
        if (start > end) {
            return new KeyGroupRange(0, numKeyGroups - 1);
        }
        return new KeyGroupRange(start, end);
    }
}
