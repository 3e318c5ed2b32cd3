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

package io.rhino.benchmarks.handover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Reads the steps of an instance's last open from RocksDB 8.10's information log. */
class RocksDbOpenStepsTest {

    /** A new instance's first open (it creates MANIFEST 1 before recovering), then a reopen. */
    private static final List<String> LOG =
            List.of(
                    "2026/11/28-23:42:55.521404 140628153333440 RocksDB version: 8.10.0",
                    "2026/11/28-23:42:55.545057 140628153333440 [/db_impl/db_impl_open.cc:325]"
                            + " Creating manifest 1 ",
                    "2026/11/28-23:42:55.553700 140628153333440 [/version_set.cc:5946] Recovering"
                            + " from manifest file: /tmp/a/db/MANIFEST-000001",
                    "2026/11/28-23:42:55.556000 140628153333440 [/version_set.cc:5997] Recovered"
                            + " from manifest file:/tmp/a/db/MANIFEST-000001 succeeded",
                    "2026/11/28-23:42:55.557000 140628153333440 [/db_impl/db_impl_open.cc:646] DB"
                            + " ID: 0e0fd90b-b0f7-49b7-9c6a-3fd68606c0ae",
                    "2026/11/28-23:42:55.557500 140628153333440 [/version_set.cc:5443] Creating"
                            + " manifest 5 ",
                    "2026/11/28-23:42:55.560000 140628153333440 DB pointer 0x7fe6a16e4f40",
                    "2026/11/28-23:56:18.104744 140627612268224 RocksDB version: 8.10.0",
                    "2026/11/28-23:56:18.104847 140627612268224 MANIFEST file:  MANIFEST-000005"
                            + " size: 6996 Bytes",
                    "2026/11/28-23:56:18.105203 140627612268224 [/version_set.cc:5946] Recovering"
                            + " from manifest file: /tmp/b/db/MANIFEST-000005",
                    "  cache_index_and_filter_blocks: 1",
                    "2026/11/28-23:56:18.116565 140627612268224 [/version_set.cc:5997] Recovered"
                            + " from manifest file:/tmp/b/db/MANIFEST-000005 succeeded",
                    "2026/11/28-23:56:18.125963 140627612268224 [/db_impl/db_impl_open.cc:646] DB"
                            + " ID: 0e0fd90b-b0f7-49b7-9c6a-3fd68606c0ae",
                    "2026/11/28-23:56:18.126241 140627612268224 [/version_set.cc:5443] Creating"
                            + " manifest 56 ",
                    "2026/11/28-23:56:18.142477 140627612268224 [/db_impl/db_impl_open.cc:2157]"
                            + " SstFileManager instance 0x7fe759019930",
                    "2026/11/28-23:56:18.142570 140627612268224 DB pointer 0x7fe6a16e4f40",
                    "2026/11/28-23:56:50.678935 140628153333440 [/db_impl/db_impl.cc:486]"
                            + " Shutdown: canceling all background work");

    @Test
    void theLastOpensStepsInMilliseconds() {
        RocksDbOpenSteps steps = RocksDbOpenSteps.lastOpenIn(LOG).orElseThrow();

        assertThat(steps.recoverMillis()).isCloseTo(11.362, within(0.001));
        assertThat(steps.identityMillis()).isCloseTo(9.398, within(0.001));
        assertThat(steps.newManifestMillis()).isCloseTo(16.329, within(0.001));
        assertThat(steps.totalMillis()).isCloseTo(37.826, within(0.001));
    }

    @Test
    void aNewInstancesManifestIsNotItsReopenedOne() {
        RocksDbOpenSteps first = RocksDbOpenSteps.lastOpenIn(LOG.subList(0, 7)).orElseThrow();

        assertThat(first.newManifestMillis()).isCloseTo(2.5, within(0.001));
        assertThat(first.totalMillis()).isCloseTo(38.596, within(0.001));
    }

    @Test
    void anOpenThatDidNotFinishOrLogsWithoutStepsHasNone() {
        assertThat(RocksDbOpenSteps.lastOpenIn(LOG.subList(7, 12))).isEmpty();
        assertThat(
                        RocksDbOpenSteps.lastOpenIn(
                                List.of(
                                        "2026/11/28-23:56:18.104744 1 RocksDB version: 8.10.0",
                                        "2026/11/28-23:56:18.142570 1 DB pointer 0x7fe6a16e4f40")))
                .isEmpty();
    }

    @Test
    void anOpenAcrossMidnightCountsForward() {
        List<String> log =
                List.of(
                        "2026/11/28-23:59:59.990000 1 RocksDB version: 8.10.0",
                        "2026/11/28-23:59:59.995000 1 [/version_set.cc:5946] Recovering from manifest file: x",
                        "2026/11/29-00:00:00.001000 1 [/version_set.cc:5997] Recovered from manifest file:x",
                        "2026/11/29-00:00:00.002000 1 [/db_impl/db_impl_open.cc:646] DB ID: y",
                        "2026/11/29-00:00:00.003000 1 [/version_set.cc:5443] Creating manifest 9 ",
                        "2026/11/29-00:00:00.010000 1 DB pointer 0x1");

        RocksDbOpenSteps steps = RocksDbOpenSteps.lastOpenIn(log).orElseThrow();

        assertThat(steps.recoverMillis()).isCloseTo(6, within(0.001));
        assertThat(steps.totalMillis()).isCloseTo(20, within(0.001));
    }

    @Test
    void mediansPerStep() {
        List<RocksDbOpenSteps> opens =
                List.of(
                        new RocksDbOpenSteps(1, 10, 100, 111),
                        new RocksDbOpenSteps(3, 30, 300, 333),
                        new RocksDbOpenSteps(2, 20, 200, 222));

        assertThat(RocksDbOpenSteps.medianOf(opens))
                .contains(new RocksDbOpenSteps(2, 20, 200, 222));
        assertThat(RocksDbOpenSteps.medianOf(opens.subList(0, 2)))
                .contains(new RocksDbOpenSteps(2, 20, 200, 222));
        assertThat(RocksDbOpenSteps.medianOf(List.of())).isEmpty();
    }
}
