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
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/**
 * How long RocksDB takes to open one vnode's instance from a checkpoint of it (what a handover's
 * target does for each vnode), on an idle disk and while another writer fills the same disk. An
 * open writes and syncs a new MANIFEST, CURRENT and OPTIONS file, so its time is mostly that of a
 * few syncs, which wait behind whatever else the disk is writing. Each condition opens with
 * RocksDB's defaults (16 file-opening threads, table properties read for compaction statistics),
 * with what vnode instances use (4 threads, no statistics read) and with one thread; the cold
 * conditions drop the page cache before each open (root only), as after a restart or with replicas
 * written long ago.
 */
public final class RocksDbOpenBenchmark {

    private static final byte[] STATE = "state".getBytes();
    private static final Path DROP_CACHES = Paths.get("/proc/sys/vm/drop_caches");
    private static final List<OpenOptions> VARIANTS =
            List.of(
                    new OpenOptions("rocksdb-default", 16, false),
                    new OpenOptions("vnode-instance", 4, true),
                    new OpenOptions("one-thread", 1, true));

    /** How an open reads the instance's table files. */
    private record OpenOptions(String name, int openingThreads, boolean skipStatistics) {}

    private RocksDbOpenBenchmark() {}

    public static void main(String[] argv) {
        BenchmarkMain.exit(
                "RocksDB open benchmark",
                () -> {
                    run(argv);
                    return true;
                });
    }

    static void run(String[] argv) throws Exception {
        Args args =
                new Args("RocksDbOpenBenchmark")
                        .flag("state-mb", 420, "MB of 1 KB values in the instance (one vnode)")
                        .flag("opens", 10, "opens per condition")
                        .flag("cold", true, "also open with a dropped page cache (needs root)")
                        .flag(
                                "background-write-mb",
                                6000,
                                "MB another thread writes to the same disk (without syncing)"
                                        + " during the second series of opens")
                        .flag("dir", System.getProperty("java.io.tmpdir"), "working directory")
                        .flag("out", "benchmarks-nexmark/target/rocksdb-open.csv", "CSV file");
        if (!args.parse(argv)) {
            return;
        }
        RocksDB.loadLibrary();
        Path work = Files.createTempDirectory(Paths.get(args.get("dir")), "rhino-open-bench-");
        List<String> csv =
                new ArrayList<>(
                        List.of("condition,variant,opening_threads,skip_statistics,open,open_ms"));
        List<ColumnFamilyDescriptor> families =
                List.of(
                        new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                        new ColumnFamilyDescriptor(STATE));
        try (DBOptions options =
                new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)) {
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            try (RocksDB db =
                    RocksDB.open(options, work.resolve("db").toString(), families, handles)) {
                fill(db, handles.get(1), args.getLong("state-mb"));
                int opens = args.getInt("opens", 1);
                for (OpenOptions variant : VARIANTS) {
                    measure("idle", variant, false, db, families, work, opens, csv);
                }
                if (Boolean.parseBoolean(args.get("cold"))) {
                    for (OpenOptions variant : VARIANTS) {
                        measure("cold", variant, true, db, families, work, opens, csv);
                    }
                }
                AtomicBoolean stop = new AtomicBoolean();
                Thread writer =
                        new Thread(
                                () ->
                                        write(
                                                work.resolve("background"),
                                                args.getLong("background-write-mb"),
                                                stop),
                                "background-writer");
                writer.start();
                Thread.sleep(2_000); // let the writes fill the page cache and start writeback
                try {
                    for (OpenOptions variant : VARIANTS) {
                        measure(
                                "background-writes",
                                variant,
                                false,
                                db,
                                families,
                                work,
                                opens,
                                csv);
                    }
                } finally {
                    stop.set(true);
                    writer.join();
                }
                handles.forEach(ColumnFamilyHandle::close);
            }
        } finally {
            EmbeddedCluster.deleteRecursively(work);
        }
        BenchmarkMain.writeCsv(Paths.get(args.get("out")), csv);
    }

    private static void fill(RocksDB db, ColumnFamilyHandle state, long megabytes)
            throws Exception {
        Random random = new Random(42);
        byte[] key = new byte[16];
        byte[] value = new byte[1024];
        try (WriteOptions noWal = new WriteOptions().setDisableWAL(true);
                FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            for (long i = 0; i < megabytes * 1024; i++) {
                random.nextBytes(key);
                random.nextBytes(value);
                db.put(state, noWal, key, value);
            }
            db.flush(flush, state);
            db.compactRange(state);
        }
    }

    /**
     * Opens a fresh checkpoint of {@code db} {@code opens} times with {@code variant}'s options,
     * after dropping the page cache if {@code cold}; prints and records each.
     */
    private static void measure(
            String condition,
            OpenOptions variant,
            boolean cold,
            RocksDB db,
            List<ColumnFamilyDescriptor> families,
            Path work,
            int opens,
            List<String> csv)
            throws Exception {
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < opens; i++) {
            Path copy = work.resolve(condition + "-" + variant.name() + "-" + i);
            try (Checkpoint checkpoint = Checkpoint.create(db)) {
                checkpoint.createCheckpoint(copy.toString());
            }
            if (cold) {
                dropPageCache();
            }
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            long start = System.nanoTime();
            // the DB options Flink's RocksDB backend starts from
            try (DBOptions options =
                            new DBOptions()
                                    .setUseFsync(false)
                                    .setStatsDumpPeriodSec(0)
                                    .setMaxFileOpeningThreads(variant.openingThreads())
                                    .setSkipStatsUpdateOnDbOpen(variant.skipStatistics());
                    RocksDB opened = RocksDB.open(options, copy.toString(), families, handles)) {
                long elapsed = (System.nanoTime() - start) / 1_000_000;
                millis.add(elapsed);
                csv.add(
                        String.join(
                                ",",
                                condition,
                                variant.name(),
                                "" + variant.openingThreads(),
                                "" + variant.skipStatistics(),
                                "" + i,
                                "" + elapsed));
                handles.forEach(ColumnFamilyHandle::close);
            }
            EmbeddedCluster.deleteRecursively(copy);
            Thread.sleep(300);
        }
        System.out.printf("%-18s %-16s opens (ms): %s%n", condition, variant.name(), millis);
    }

    /** Writes back dirty pages, then drops the clean ones, so the next open reads the disk. */
    private static void dropPageCache() throws Exception {
        if (new ProcessBuilder("sync").inheritIO().start().waitFor() != 0) {
            throw new IOException("sync failed");
        }
        try {
            Files.writeString(DROP_CACHES, "1");
        } catch (IOException e) {
            throw new IOException(
                    "Cannot drop the page cache (" + e + "): run as root or pass --cold false", e);
        }
    }

    /** Writes {@code megabytes} over and over into one file until stopped, never syncing. */
    private static void write(Path file, long megabytes, AtomicBoolean stop) {
        byte[] chunk = new byte[1 << 20];
        try {
            while (!stop.get()) {
                try (OutputStream out = Files.newOutputStream(file)) {
                    for (long i = 0; i < megabytes && !stop.get(); i++) {
                        out.write(chunk);
                    }
                }
            }
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new IllegalStateException("Background writer failed", e);
        }
    }
}
