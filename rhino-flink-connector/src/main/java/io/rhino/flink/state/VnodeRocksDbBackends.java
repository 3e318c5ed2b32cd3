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

import io.rhino.flink.config.RhinoOptions;
import java.io.File;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import javax.annotation.Nullable;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.util.TernaryBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RocksDB backends that create a Rhino operator's vnode instances: as configured, with timers
 * in RocksDB and the vnode options under the configured ones, and, where {@code
 * state.backend.rocksdb.log.dir} is set, the same without it for operators whose instances' logs
 * could not be named there.
 *
 * <p>RocksDB names a log it keeps outside the instance after the instance's whole path ({@code
 * /tmp/job_x_op_y_uuid_z/db} becomes {@code tmp_job_x_op_y_uuid_z_db_LOG}), and most file systems
 * stop file names at 255 characters. A vnode's instance path is longer than Flink's own ({@code
 * _vnode_<n>} in the operator's part), so a log directory that works for plain Flink can fail a
 * Rhino operator's start with "File name too long". Such an operator's instances keep their logs in
 * their own directories, as Flink does for its default log relocation (FLINK-31743).
 */
final class VnodeRocksDbBackends implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(VnodeRocksDbBackends.class);

    /** The longest file name most file systems accept. */
    static final int MAX_FILE_NAME = 255;

    private static final String RELOCATED_LOG_SUFFIX = "_LOG";
    private static final int UUID_LENGTH = new UUID(0, 0).toString().length();

    private final EmbeddedRocksDBStateBackend configured;

    /** Null where no log directory is configured. */
    @Nullable private final String logDir;

    @Nullable private final EmbeddedRocksDBStateBackend logInInstance;

    private VnodeRocksDbBackends(
            EmbeddedRocksDBStateBackend configured,
            @Nullable String logDir,
            @Nullable EmbeddedRocksDBStateBackend logInInstance) {
        this.configured = configured;
        this.logDir = logDir;
        this.logInInstance = logInInstance;
    }

    /** Unconfigured: timers in RocksDB, everything else Flink's defaults. */
    static VnodeRocksDbBackends unconfigured() {
        return new VnodeRocksDbBackends(timersInRocksDb(), null, null);
    }

    static VnodeRocksDbBackends configure(ReadableConfig config, ClassLoader classLoader) {
        String logDir = config.get(RocksDBConfigurableOptions.LOG_DIR);
        if (logDir == null || logDir.isEmpty()) {
            return new VnodeRocksDbBackends(configured(config, classLoader), null, null);
        }
        Configuration withoutLogDir = Configuration.fromMap(config.toMap());
        withoutLogDir.removeConfig(RocksDBConfigurableOptions.LOG_DIR);
        return new VnodeRocksDbBackends(
                configured(config, classLoader), logDir, configured(withoutLogDir, classLoader));
    }

    /** The backend for the vnode instances of one subtask of an operator. */
    EmbeddedRocksDBStateBackend forOperator(
            Environment env, String operatorIdentifier, int numVnodes) {
        if (logInInstance == null) {
            return configured;
        }
        String longest =
                longestInstancePath(
                        storageDirectories(env),
                        env.getJobID(),
                        vnodeIdentifier(operatorIdentifier, numVnodes - 1));
        if (relocatedLogNameFits(longest)) {
            return configured;
        }
        LOG.warn(
                "{}: its vnode instances keep their RocksDB logs in their own directories instead"
                        + " of {} ({}). RocksDB names a log there after its instance's path, which"
                        + " reaches {} characters here, and a file name stops at {}. Shorten"
                        + " state.backend.rocksdb.localdir (or io.tmp.dirs) to keep the logs there.",
                operatorIdentifier,
                RocksDBConfigurableOptions.LOG_DIR.key(),
                logDir,
                longest.length(),
                MAX_FILE_NAME);
        return logInInstance;
    }

    /** The operator identifier Flink's backend gets for one vnode's instance. */
    static String vnodeIdentifier(String operatorIdentifier, int vnode) {
        return operatorIdentifier + "_vnode_" + vnode;
    }

    /**
     * The longest instance path Flink's RocksDB backend can give an operator: its longest storage
     * directory, then {@code job_<job>_op_<identifier>_uuid_<uuid>/db}.
     */
    static String longestInstancePath(
            List<File> storageDirectories, JobID job, String operatorIdentifier) {
        String instance =
                "job_"
                        + job
                        + "_op_"
                        + operatorIdentifier.replaceAll("[^a-zA-Z0-9\\-]", "_")
                        + "_uuid_"
                        + "x".repeat(UUID_LENGTH);
        return storageDirectories.stream()
                .map(dir -> new File(new File(dir.getAbsoluteFile(), instance), "db").getPath())
                .reduce("", (a, b) -> a.length() >= b.length() ? a : b);
    }

    /** Whether RocksDB can name the log of an instance at this path in another directory. */
    static boolean relocatedLogNameFits(String instancePath) {
        return instancePath.length() + RELOCATED_LOG_SUFFIX.length() <= MAX_FILE_NAME;
    }

    private List<File> storageDirectories(Environment env) {
        String[] configuredDirs = configured.getDbStoragePaths();
        if (configuredDirs == null) {
            return List.of(env.getTaskManagerInfo().getTmpWorkingDirectory());
        }
        return Arrays.stream(configuredDirs).map(File::new).toList();
    }

    /**
     * The configured RocksDB backend, with timers in RocksDB and the vnode instances' options
     * ({@link VnodeRocksDbOptions}) under the configured ones.
     */
    private static EmbeddedRocksDBStateBackend configured(
            ReadableConfig config, ClassLoader classLoader) {
        EmbeddedRocksDBStateBackend backend = timersInRocksDb().configure(config, classLoader);
        backend.setRocksDBOptions(
                new VnodeRocksDbOptions(
                        config.get(RhinoOptions.STATE_ARENA_BLOCK_SIZE).getBytes(),
                        backend.getRocksDBOptions()));
        return backend;
    }

    /** A type set explicitly wins over the configuration when the backend is configured. */
    private static EmbeddedRocksDBStateBackend timersInRocksDb() {
        EmbeddedRocksDBStateBackend backend = new EmbeddedRocksDBStateBackend(TernaryBoolean.TRUE);
        backend.setPriorityQueueStateType(
                EmbeddedRocksDBStateBackend.PriorityQueueStateType.ROCKSDB);
        return backend;
    }
}
