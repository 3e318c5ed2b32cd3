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

package io.rhino.benchmarks.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rhino.benchmarks.harness.PhaseTimings;
import org.junit.jupiter.api.Test;

class RestartRescaleTimelineTest {

    @Test
    void aRestartSplitsIntoTheStepsOfTable51() {
        // asked at 0; stopped at 2.0 s; deployed 2.5 s; all running 4.0 s; result 4.2 s; caught
        // up 7.0 s; Flink reported the longest download as 0.6 s
        RestartRescaleTimeline timeline =
                new RestartRescaleTimeline(1_000, 3_000, 3_500, 5_000, 5_200, 8_000, 600);

        assertThat(timeline.phases().seconds())
                .containsExactly(
                        entry(RestartRescaleTimeline.UNTIL_RESTART, 2.0),
                        entry(PhaseTimings.SCHEDULING, 0.5),
                        entry(PhaseTimings.STATE_FETCHING, 0.6),
                        entry(PhaseTimings.STATE_LOADING, 0.9),
                        entry(RestartRescaleTimeline.UNTIL_PROCESSING, 0.2),
                        entry(TaskManagerFailure.CATCH_UP, 2.8),
                        entry(RestartRescaleTimeline.DOWNTIME, 2.2),
                        entry(RestartRescaleTimeline.TOTAL, 7.0));
    }

    @Test
    void withoutAReportedDownloadTheWholeRestoreIsLoading() {
        RestartRescaleTimeline timeline =
                new RestartRescaleTimeline(0, 1_000, 1_200, 2_000, 1_900, -1, -1);

        assertThat(timeline.phases().seconds())
                .doesNotContainKeys(
                        PhaseTimings.STATE_FETCHING,
                        TaskManagerFailure.CATCH_UP,
                        RestartRescaleTimeline.TOTAL)
                .containsEntry(PhaseTimings.STATE_LOADING, 0.8)
                // a result before the last subtask ran: processing counts from the last one
                .containsEntry(RestartRescaleTimeline.UNTIL_PROCESSING, 0.0)
                .containsEntry(RestartRescaleTimeline.DOWNTIME, 1.0);
    }

    @Test
    void aDownloadLongerThanTheRestoreIsCappedByIt() {
        RestartRescaleTimeline timeline =
                new RestartRescaleTimeline(0, 1_000, 1_200, 2_000, 2_100, 3_000, 5_000);

        assertThat(timeline.phases().seconds())
                .containsEntry(PhaseTimings.STATE_FETCHING, 0.8)
                .containsEntry(PhaseTimings.STATE_LOADING, 0.0);
    }

    @Test
    void aLiveRescaleHasNoDowntime() {
        RestartRescaleTimeline timeline =
                new RestartRescaleTimeline(1_000, -1, -1, 1_400, -1, 3_400, -1);

        assertThat(timeline.restarted()).isFalse();
        assertThat(timeline.phases().seconds())
                .containsExactly(
                        entry(RestartRescaleTimeline.LIVE_RESCALE, 0.4),
                        entry(TaskManagerFailure.CATCH_UP, 2.0),
                        entry(RestartRescaleTimeline.DOWNTIME, 0.0),
                        entry(RestartRescaleTimeline.TOTAL, 2.4));
    }

    @Test
    void instantsOutOfOrderAreRefused() {
        assertThatThrownBy(
                        () ->
                                new RestartRescaleTimeline(0, 1_000, 900, 2_000, 2_100, -1, -1)
                                        .phases())
                .isInstanceOf(IllegalStateException.class);
    }

    private static java.util.Map.Entry<String, Double> entry(String name, double seconds) {
        return java.util.Map.entry(name, seconds);
    }
}
