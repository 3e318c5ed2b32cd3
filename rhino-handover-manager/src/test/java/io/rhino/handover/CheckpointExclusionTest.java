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

import static io.rhino.handover.CheckpointExclusion.State.CHECKPOINTING;
import static io.rhino.handover.CheckpointExclusion.State.HANDOVER_RUNNING;
import static io.rhino.handover.CheckpointExclusion.State.IDLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.handover.CheckpointExclusion.CheckpointEnd;
import org.junit.jupiter.api.Test;

class CheckpointExclusionTest {

    private final CheckpointExclusion exclusion = new CheckpointExclusion();
    private final Runnable proceed1 = () -> {};
    private final Runnable proceed2 = () -> {};

    @Test
    void checkpointsProceedAtOnceAndBlockHandoversUntilAllEnded() {
        assertThat(exclusion.checkpointRequested(1, proceed1)).containsSame(proceed1);
        assertThat(exclusion.checkpointRequested(2, proceed2)).containsSame(proceed2);
        assertThat(exclusion.state()).isEqualTo(CHECKPOINTING);
        assertThat(exclusion.mayStartHandover()).isFalse();
        assertThat(exclusion.oldestCheckpointInFlight()).contains(1L);

        assertThat(exclusion.checkpointEnded(1)).isEqualTo(CheckpointEnd.ENDED);
        assertThat(exclusion.mayStartHandover()).isFalse();
        assertThat(exclusion.checkpointEnded(2)).isEqualTo(CheckpointEnd.ENDED);
        assertThat(exclusion.state()).isEqualTo(IDLE);
        assertThat(exclusion.mayStartHandover()).isTrue();
    }

    @Test
    void checkpointsDuringAHandoverAreDeferredAndReleasedInOrder() {
        exclusion.handoverStarted();
        assertThat(exclusion.checkpointRequested(2, proceed2)).isEmpty();
        assertThat(exclusion.checkpointRequested(1, proceed1)).isEmpty();
        assertThat(exclusion.state()).isEqualTo(HANDOVER_RUNNING);

        assertThat(exclusion.handoverEnded()).containsExactly(proceed2, proceed1);
        assertThat(exclusion.state()).isEqualTo(CHECKPOINTING);
        assertThat(exclusion.oldestCheckpointInFlight()).contains(1L);
    }

    @Test
    void handoverEndingWithoutDeferredCheckpointsLeavesIdle() {
        exclusion.handoverStarted();
        assertThat(exclusion.handoverEnded()).isEmpty();
        assertThat(exclusion.state()).isEqualTo(IDLE);
    }

    @Test
    void deferredCheckpointThatEndsIsDropped() {
        exclusion.handoverStarted();
        exclusion.checkpointRequested(1, proceed1);
        assertThat(exclusion.checkpointEnded(1)).isEqualTo(CheckpointEnd.DROPPED_WHILE_DEFERRED);
        assertThat(exclusion.handoverEnded()).isEmpty();
        assertThat(exclusion.state()).isEqualTo(IDLE);
    }

    @Test
    void unknownCheckpointEndChangesNothing() {
        exclusion.handoverStarted();
        assertThat(exclusion.checkpointEnded(9)).isEqualTo(CheckpointEnd.UNKNOWN);
        assertThat(exclusion.state()).isEqualTo(HANDOVER_RUNNING);
    }

    @Test
    void illegalTransitionsNameTheCurrentState() {
        exclusion.checkpointRequested(1, proceed1);
        assertThatThrownBy(exclusion::handoverStarted)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("cannot start a handover in state CHECKPOINTING");
        assertThatThrownBy(exclusion::handoverEnded)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot end a handover in state CHECKPOINTING");
        exclusion.checkpointEnded(1);
        exclusion.handoverStarted();
        assertThatThrownBy(exclusion::reset)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("cannot forget checkpoints in state HANDOVER_RUNNING");
    }

    @Test
    void sameCheckpointTwiceIsAnArgumentError() {
        exclusion.handoverStarted();
        exclusion.checkpointRequested(1, proceed1);
        assertThatThrownBy(() -> exclusion.checkpointRequested(1, proceed1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("checkpointId: 1 (expected: ");
    }

    @Test
    void resetForgetsEveryCheckpoint() {
        exclusion.checkpointRequested(1, proceed1);
        exclusion.reset();
        assertThat(exclusion.state()).isEqualTo(IDLE);
        assertThat(exclusion.oldestCheckpointInFlight()).isEmpty();
        assertThat(exclusion.checkpointEnded(1)).isEqualTo(CheckpointEnd.UNKNOWN);
    }
}
