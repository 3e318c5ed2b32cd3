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

package io.rhino.benchmarks.studies;

import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.cli.BenchmarkMain;
import io.rhino.benchmarks.cluster.EmbeddedCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.rocksdb.Env;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Priority;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;
import org.rocksdb.WriteOptions;

/**
 * What the synchronous phase of a checkpoint costs per RocksDB instance: a flush of each written
 * column family and a native checkpoint (hard links, a copied MANIFEST, CURRENT and OPTIONS written
 * and synced), as Flink's incremental snapshot takes of every vnode instance. Several small
 * instances share a write buffer manager, as a slot's vnodes do; after a few writes to each, every
 * round checkpoints them one after the other, as the task thread does. Variants: flush every
 * instance before the first checkpoint without waiting ({@code flush-all-first}), RocksDB's atomic
 * flush, and more flush threads.
 */
public final class InstanceCheckpointBenchmark {

    private static final int WRITTEN_FAMILIES = 3;

    private InstanceCheckpointBenchmark() {}

    public static void main(String[] argv) {
        BenchmarkMain.exit(
                "Instance checkpoint benchmark",
                () -> {
                    run(argv);
                    return true;
                });
    }

    static void run(String[] argv) throws Exception {
        Args args =
                new Args("InstanceCheckpointBenchmark")
                        .flag("instances", 8, "RocksDB instances (vnodes of one subtask)")
                        .flag("writes", 60, "1 KB writes per instance before each round")
                        .flag("rounds", 6, "checkpoint rounds per variant (the first is dropped)")
                        .flag(
                                "variants",
                                "plain,flush-all-first,atomic-flush,flush-threads-4",
                                "comma-separated: plain, no-writes, flush-all-first,"
                                        + " atomic-flush, flush-threads-4")
                        .flag("dir", System.getProperty("java.io.tmpdir"), "working directory")
                        .flag(
                                "out",
                                "benchmarks-nexmark/target/instance-checkpoint.csv",
                                "CSV file");
        if (!args.parse(argv)) {
            return;
        }
        RocksDB.loadLibrary();
        List<String> csv =
                new ArrayList<>(List.of("variant,round,instances,total_ms,ms_per_instance"));
        List<String> variants =
                Arrays.stream(args.get("variants").split(",")).map(String::trim).toList();
        int threads = variants.indexOf("flush-threads-4");
        if (threads >= 0 && threads != variants.size() - 1) {
            throw new IllegalArgumentException(
                    "--variants: flush-threads-4 enlarges RocksDB's process-wide flush pool for"
                            + " every later variant; list it last");
        }
        for (String variant : variants) {
            Path work = Files.createTempDirectory(Paths.get(args.get("dir")), "rhino-ckpt-bench-");
            try {
                measure(
                        variant,
                        work,
                        args.getInt("instances", 1),
                        args.getInt("writes", 0),
                        args.getInt("rounds", 2),
                        csv);
            } finally {
                EmbeddedCluster.deleteRecursively(work);
            }
        }
        BenchmarkMain.writeCsv(Paths.get(args.get("out")), csv);
    }

    private static void measure(
            String variant, Path work, int instances, int writes, int rounds, List<String> csv)
            throws Exception {
        if (variant.equals("flush-threads-4")) {
            // process-wide, hence the last variant
            Env.getDefault().setBackgroundThreads(4, Priority.HIGH);
        }
        List<LayoutInstance> instancesOpen = new ArrayList<>();
        // the write buffer manager and its cache outlive the instances that share them
        try (LRUCache cache = new LRUCache(128 << 20);
                WriteBufferManager buffers = new WriteBufferManager(64 << 20, cache);
                WriteOptions noWal = new WriteOptions().setDisableWAL(true)) {
            try {
                List<String> written = new ArrayList<>();
                for (int f = 0; f < WRITTEN_FAMILIES; f++) {
                    written.add("state-" + f);
                }
                for (int i = 0; i < instances; i++) {
                    instancesOpen.add(
                            LayoutInstance.open(
                                    work.resolve("db-" + i),
                                    written,
                                    buffers,
                                    variant.equals("atomic-flush")));
                }
                Random random = new Random(42);
                byte[] value = new byte[1024];
                List<String> perInstance = new ArrayList<>();
                for (int round = 0; round < rounds; round++) {
                    for (int i = 0; i < instances; i++) {
                        for (int w = 0; w < (variant.equals("no-writes") ? 0 : writes); w++) {
                            random.nextBytes(value);
                            LayoutInstance instance = instancesOpen.get(i);
                            instance.db()
                                    .put(
                                            instance.families().get(w % WRITTEN_FAMILIES),
                                            noWal,
                                            ("key-" + random.nextInt(100_000)).getBytes(),
                                            value);
                        }
                    }
                    Thread.sleep(200);
                    long start = System.nanoTime();
                    if (variant.equals("flush-all-first")) {
                        try (FlushOptions noWait = new FlushOptions().setWaitForFlush(false)) {
                            for (int i = 0; i < instances; i++) {
                                instancesOpen
                                        .get(i)
                                        .db()
                                        .flush(noWait, instancesOpen.get(i).families());
                            }
                        }
                    }
                    for (int i = 0; i < instances; i++) {
                        instancesOpen.get(i).checkpoint(work.resolve("chk-" + round + "-" + i));
                    }
                    double millis = (System.nanoTime() - start) / 1e6;
                    csv.add(
                            String.format(
                                    "%s,%d,%d,%.2f,%.2f",
                                    variant, round, instances, millis, millis / instances));
                    if (round > 0) {
                        perInstance.add(String.format("%.2f", millis / instances));
                    }
                }
                System.out.printf(
                        "%-16s ms per instance (rounds after the first): %s%n",
                        variant, perInstance);
            } finally {
                instancesOpen.forEach(LayoutInstance::close);
            }
        }
    }
}
