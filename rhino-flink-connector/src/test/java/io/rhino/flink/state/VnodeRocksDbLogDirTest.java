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

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.flink.spec.RhinoOperatorSpec;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code state.backend.rocksdb.log.dir} with vnode instances: RocksDB names a log it keeps there
 * after the instance's whole path, so instances whose name there would pass 255 characters keep
 * their logs in their own directories instead of failing to open.
 */
class VnodeRocksDbLogDirTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("op", 128, 4, 1, 1);

    /** Two subtasks, the second owning no vnode until a handover moves one there. */
    private static final RhinoOperatorSpec WITH_STANDBY = new RhinoOperatorSpec("op", 128, 4, 2, 1);

    private static final ValueStateDescriptor<Long> VALUE =
            new ValueStateDescriptor<>("value", Types.LONG);

    @TempDir Path temp;

    @Test
    void vnodeInstancesLogIntoTheConfiguredDirectoryWhereTheirLogNamesFit() throws Exception {
        Path logs = Files.createDirectories(temp.resolve("logs"));
        Path local = Files.createDirectories(temp.resolve("local"));

        try (VnodeBackendHarness harness = harness(logs, local)) {
            VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
            assertThat(backend.ownedVnodes()).hasSize(4);

            assertThat(logsIn(logs)).hasSize(4).allMatch(name -> name.endsWith("_db_LOG"));
            assertThat(instanceLogsUnder(local)).isEmpty();
            // the computed longest path is that of the last vnode's instance, as Flink names it
            int longest =
                    VnodeRocksDbBackends.longestInstancePath(
                                    List.of(local.toFile()), new JobID(), "op_0_vnode_3")
                            .length();
            assertThat(instancePathLengthsUnder(local))
                    .hasSize(4)
                    .allMatch(length -> length <= longest)
                    .contains(longest);
        }
    }

    @Test
    void vnodeInstancesWhoseLogNamesWouldBeTooLongKeepTheirLogsInTheirOwnDirectories()
            throws Exception {
        Path logs = Files.createDirectories(temp.resolve("logs"));
        // Flink's own instance path here would leave its log name just under the limit; the
        // vnode's "_vnode_<n>" takes it past
        Path local = Files.createDirectories(temp.resolve(longDirectoryName(temp)));

        try (VnodeBackendHarness harness = harness(logs, local)) {
            VnodeKeyedStateBackend<Long> backend = harness.create(0, List.of());
            assertThat(backend.ownedVnodes()).hasSize(4);

            assertThat(instanceLogsUnder(local)).hasSize(4);
            assertThat(logsIn(logs)).isEmpty();
        }
    }

    @Test
    void vnodesInstalledByAHandoverAndRestoredAfterAFailureKeepTheirLogsThereToo()
            throws Exception {
        Path logs = Files.createDirectories(temp.resolve("logs"));
        Path local = Files.createDirectories(temp.resolve(longDirectoryName(temp)));

        try (VnodeBackendHarness harness =
                new VnodeBackendHarness(WITH_STANDBY, temp.resolve("checkpoints"))
                        .withConfiguration(configuration(logs, local))) {
            VnodeKeyedStateBackend<Long> origin = harness.create(0, List.of());
            VnodeKeyedStateBackend<Long> target = harness.create(1, List.of());
            long key = harness.keysOf(0, 1).get(0);
            origin.setCurrentKey(key);
            valueOf(origin).update(7L);

            harness.move(origin, target, 0, temp.resolve("export"));
            KeyedStateHandle checkpoint = harness.checkpoint(target, 1);
            VnodeKeyedStateBackend<Long> restored = harness.create(1, List.of(checkpoint));

            assertThat(restored.ownedVnodes()).containsExactly(0);
            restored.setCurrentKey(key);
            assertThat(valueOf(restored).value()).isEqualTo(7L);
            // the origin's 3 left (the moved vnode's was dropped), the installed one, the restored
            assertThat(instanceLogsUnder(local)).hasSize(5);
            assertThat(logsIn(logs)).isEmpty();
        }
    }

    @Test
    void theLongestInstancePathComesFromTheLongestStorageDirectory() {
        JobID job = new JobID();
        String path =
                VnodeRocksDbBackends.longestInstancePath(
                        List.of(new File("/a"), new File("/bbbb"), new File("/cc")),
                        job,
                        "Keyed Operator (1/2)_vnode_17");

        assertThat(path)
                .startsWith("/bbbb/job_" + job + "_op_Keyed_Operator__1_2__vnode_17_uuid_")
                .endsWith("/db")
                // the uuid Flink appends is 36 characters long
                .hasSize(
                        ("/bbbb/job_" + job + "_op_Keyed_Operator__1_2__vnode_17_uuid_").length()
                                + 36
                                + "/db".length());
    }

    @Test
    void aLogNameFitsUpTo255CharactersWithItsSuffix() {
        assertThat(VnodeRocksDbBackends.relocatedLogNameFits("/" + "x".repeat(250))).isTrue();
        assertThat(VnodeRocksDbBackends.relocatedLogNameFits("/" + "x".repeat(251))).isFalse();
    }

    private VnodeBackendHarness harness(Path logs, Path local) {
        return new VnodeBackendHarness(SPEC, temp.resolve("checkpoints"))
                .withConfiguration(configuration(logs, local));
    }

    private static Configuration configuration(Path logs, Path local) {
        Configuration config = new Configuration();
        config.set(RocksDBConfigurableOptions.LOG_DIR, logs.toString());
        config.set(RocksDBOptions.LOCAL_DIRECTORIES, local.toString());
        return config;
    }

    private static ValueState<Long> valueOf(VnodeKeyedStateBackend<Long> backend) throws Exception {
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
    }

    /**
     * A directory name that makes the vnode instances' log names a few characters too long, while
     * Flink's own instance (the identifier without "_vnode_<n>") would still fit.
     */
    private static String longDirectoryName(Path parent) {
        String flinkInstance =
                "/job_" + new JobID() + "_op_op_0_uuid_" + "x".repeat(36) + "/db" + "_LOG";
        int room = VnodeRocksDbBackends.MAX_FILE_NAME - parent.toString().length() - 1;
        return "d".repeat(room - flinkInstance.length());
    }

    private static List<String> logsIn(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(file -> file.getFileName().toString()).toList();
        }
    }

    private static List<Integer> instancePathLengthsUnder(Path directory) throws IOException {
        try (Stream<Path> instances = Files.list(directory)) {
            return instances
                    .filter(dir -> dir.getFileName().toString().startsWith("job_"))
                    .map(dir -> dir.resolve("db").toAbsolutePath().toString().length())
                    .toList();
        }
    }

    private static List<Path> instanceLogsUnder(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.getFileName().toString().equals("LOG")).toList();
        }
    }
}
