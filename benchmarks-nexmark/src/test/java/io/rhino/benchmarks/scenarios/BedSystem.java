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

import io.rhino.benchmarks.nexmark.queries.Variant;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.state.RhinoStateBackendFactory;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;

/**
 * The systems of the paper's failover comparison (Table 5.1) on the network bed, each with its
 * checkpoints in HDFS on the storage host: Flink on RocksDB, with and without task-local recovery;
 * Rhino restoring from the checkpoint storage as Flink does (the paper's RhinoDFS); Rhino with its
 * checkpoints replicated to a peer TaskManager (factor 2, the paper's), with and without local
 * recovery; and with a copy on every TaskManager of the bed (factor 3), where a restarted subtask
 * finds its replica wherever Flink places it.
 */
enum BedSystem {
    FLINK(Variant.PLAIN, false, 1),
    FLINK_LOCAL(Variant.PLAIN, true, 1),
    RHINO_DFS(Variant.RHINO, false, 1),
    RHINO(Variant.RHINO, false, 2),
    RHINO_LOCAL(Variant.RHINO, true, 2),
    RHINO_LOCAL_3_COPIES(Variant.RHINO, true, 3);

    private final Variant variant;
    private final boolean localRecovery;
    private final int copies;

    /**
     * @param copies the replication factor: 1 for no peer replicas
     */
    BedSystem(Variant variant, boolean localRecovery, int copies) {
        this.variant = variant;
        this.localRecovery = localRecovery;
        this.copies = copies;
    }

    /** The name in figures and CSVs, e.g. {@code rhino-local}. */
    String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The system named {@code name} ({@link #wireName}). */
    static BedSystem named(String name) {
        return Arrays.stream(values())
                .filter(system -> system.wireName().equals(name.trim()))
                .findFirst()
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "no system "
                                                + name
                                                + "; the systems are "
                                                + Arrays.stream(values())
                                                        .map(BedSystem::wireName)
                                                        .collect(Collectors.joining(", "))));
    }

    /**
     * The systems the property {@code rhino.bed.systems} names, else those {@code defaults} names.
     */
    static List<BedSystem> fromProperty(String defaults) {
        return Arrays.stream(System.getProperty("rhino.bed.systems", defaults).split(","))
                .map(BedSystem::named)
                .toList();
    }

    Variant variant() {
        return variant;
    }

    boolean rhino() {
        return variant == Variant.RHINO;
    }

    /** Options of every process of the cluster: local recovery is the TaskManagers' too. */
    Configuration clusterOptions(Configuration config) {
        return localRecovery ? NexmarkSut.withLocalRecovery(config) : config;
    }

    /** The job's state backend and its recovery options. */
    Configuration jobOptions(Configuration config) {
        config.set(
                StateBackendOptions.STATE_BACKEND,
                rhino() ? RhinoStateBackendFactory.class.getName() : "rocksdb");
        if (localRecovery) {
            NexmarkSut.withLocalRecovery(config);
        }
        if (copies > 1) {
            // each TaskManager's replica directory is its own option (BedFailoverRun)
            config.set(RhinoOptions.REPLICATION_MODE, "peers");
            config.set(RhinoOptions.REPLICATION_FACTOR, copies);
            config.set(RhinoOptions.REPLICATION_SECRET, UUID.randomUUID().toString());
        }
        if (rhino()) {
            // e.g. -Drhino.bed.rhino-options=rhino.replication.restore.check-before-open=false
            for (String option : System.getProperty("rhino.bed.rhino-options", "").split(",")) {
                int equals = option.indexOf('=');
                if (!option.isBlank()) {
                    if (equals < 1 || !option.trim().startsWith("rhino.")) {
                        throw new IllegalArgumentException(
                                "rhino.bed.rhino-options: expected rhino.key=value[,...], got '"
                                        + option
                                        + "'");
                    }
                    config.setString(
                            option.substring(0, equals).trim(),
                            option.substring(equals + 1).trim());
                }
            }
        }
        return config;
    }
}
