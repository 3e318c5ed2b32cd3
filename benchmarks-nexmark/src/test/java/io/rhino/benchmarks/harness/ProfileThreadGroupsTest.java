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

package io.rhino.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileThreadGroupsTest {

    @TempDir Path directory;

    @Test
    void threadsOfBothSystemsFallIntoTheirGroups() {
        assertThat(
                        ProfileThreadGroups.groupOf(
                                "[nbqx-session-5s (Rhino gate) -> nbqx-session-5s (1/4)#0 tid=7]"))
                .isEqualTo("keyed tasks");
        assertThat(ProfileThreadGroups.groupOf("[nbqx-session-5s (2/4)#0 tid=8]"))
                .as("plain Flink's keyed task")
                .isEqualTo("keyed tasks");
        assertThat(
                        ProfileThreadGroups.groupOf(
                                "[OutputFlusher for nbqx-session-5s (Rhino gate) -> nbqx-session-5s (1/4)#0 tid=9]"))
                .isEqualTo("other");
        assertThat(ProfileThreadGroups.groupOf("[rocksdb:low tid=10]"))
                .isEqualTo("rocksdb background");
        assertThat(ProfileThreadGroups.groupOf("[rhino-replication-8-1 tid=11]"))
                .isEqualTo("replication");
        assertThat(ProfileThreadGroups.groupOf("[AsyncOperations-thread-3 tid=12]"))
                .isEqualTo("async checkpoint");
        assertThat(
                        ProfileThreadGroups.groupOf(
                                "[Flink-RocksDBStateDataTransferHelper-thread-1 tid=13]"))
                .isEqualTo("uploads");
        assertThat(ProfileThreadGroups.groupOf("[GC Thread#0 tid=14]")).isEqualTo("gc and vm");
        assertThat(ProfileThreadGroups.groupOf("[C2 CompilerThre tid=15]")).isEqualTo("jit");
        assertThat(
                        ProfileThreadGroups.groupOf(
                                "[kafka-producer-network-thread | producer-1 tid=16]"))
                .isEqualTo("input side");
    }

    @Test
    void samplesAreSummedByGroupAcrossStacks() throws Exception {
        Path profile =
                Files.write(
                        directory.resolve("run.collapsed"),
                        List.of(
                                "[rocksdb:low tid=1];rocksdb::Compact 7",
                                "[rocksdb:high tid=2];rocksdb::Flush 5",
                                "[rhino-replication-8-1 tid=3];io/netty/Run;open 11"));

        Map<String, Long> groups = ProfileThreadGroups.samplesByGroup(profile);

        assertThat(groups)
                .containsEntry("rocksdb background", 12L)
                .containsEntry("replication", 11L);
    }
}
