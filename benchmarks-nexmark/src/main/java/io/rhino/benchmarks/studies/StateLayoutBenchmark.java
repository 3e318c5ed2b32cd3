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
import io.rhino.benchmarks.replication.Timing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ExportImportFilesMetaData;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBufferManager;
import org.rocksdb.WriteOptions;

/**
 * Measures, on plain RocksDB, the two costs that decide between Rhino's state layouts: one RocksDB
 * instance per vnode (what Rhino does) against one instance per subtask with a column family per
 * vnode and state.
 *
 * <ul>
 *   <li>{@code checkpoint}: the synchronous part of a checkpoint of one subtask after a few writes
 *       to each vnode: a native checkpoint of each vnode instance, or one of the shared instance
 *       (with and without atomic flush).
 *   <li>{@code move}: moving one filled vnode to another subtask. Per instance: a native checkpoint
 *       and an open of it (what a handover's origin and target do now). Per column family: the
 *       vnode's families exported and imported into the target's running instance, either within
 *       one process (RocksDB's export metadata is a native object that RocksJava cannot serialize)
 *       or across processes, where the files must travel as a small RocksDB instance of their own
 *       that the target opens, exports and imports.
 * </ul>
 *
 * Every move is checked: keys written to the vnode must be readable at the target.
 */
public final class StateLayoutBenchmark {

    private static final int CHECKED_KEYS = 50;

    private StateLayoutBenchmark() {}

    public static void main(String[] argv) {
        BenchmarkMain.exit(
                "State layout benchmark",
                () -> {
                    run(argv);
                    return true;
                });
    }

    static void run(String[] argv) throws Exception {
        Args args =
                new Args("StateLayoutBenchmark")
                        .flag("parts", "checkpoint,move", "comma-separated: checkpoint, move")
                        .flag("vnodes", 4, "vnodes per subtask")
                        .flag("states", 2, "keyed states (column families) per vnode")
                        .flag("writes", 60, "1 KB writes per vnode before each checkpoint")
                        .flag("rounds", 11, "checkpoints per layout (the first is dropped)")
                        .flag("vnode-mb", 512, "MB of 1 KB values in each vnode for the moves")
                        .flag("moves", 5, "moves per layout")
                        .flag("dir", System.getProperty("java.io.tmpdir"), "working directory")
                        .flag("out", "benchmarks-nexmark/target/state-layout.csv", "CSV file");
        if (!args.parse(argv)) {
            return;
        }
        RocksDB.loadLibrary();
        Shape shape =
                new Shape(
                        args.getInt("vnodes", 1),
                        args.getInt("states", 1),
                        args.getInt("writes", 0),
                        args.getLong("vnode-mb"));
        List<String> csv = new ArrayList<>(List.of("part,layout,round,phase,ms,cpu_ms"));
        List<String> parts = Arrays.stream(args.get("parts").split(",")).map(String::trim).toList();
        Path root = Paths.get(args.get("dir"));
        try (LRUCache cache = new LRUCache(128 << 20);
                WriteBufferManager buffers = new WriteBufferManager(64 << 20, cache)) {
            for (String part : parts) {
                Path work = Files.createTempDirectory(root, "rhino-layout-bench-");
                try {
                    switch (part) {
                        case "checkpoint" ->
                                new CheckpointPart(shape, work, buffers, csv)
                                        .run(args.getInt("rounds", 2));
                        case "move" ->
                                new MovePart(shape, work, buffers, csv)
                                        .run(args.getInt("moves", 1));
                        default ->
                                throw new IllegalArgumentException(
                                        "--parts: unknown part '"
                                                + part
                                                + "' (expected: checkpoint, move)");
                    }
                } finally {
                    EmbeddedCluster.deleteRecursively(work);
                }
            }
        }
        BenchmarkMain.writeCsv(Paths.get(args.get("out")), csv);
    }

    /** How much state a subtask holds and how it is written. */
    record Shape(int vnodes, int states, int writesPerVnode, long vnodeMegabytes) {

        /** The families of one vnode: {@code s0, s1, ...} alone, or prefixed with the vnode. */
        List<String> families(int vnode, boolean prefixed) {
            List<String> names = new ArrayList<>();
            for (int s = 0; s < states; s++) {
                names.add(prefixed ? "v" + vnode + "-s" + s : "s" + s);
            }
            return names;
        }

        List<String> allFamilies(int firstVnode) {
            List<String> names = new ArrayList<>();
            for (int v = firstVnode; v < firstVnode + vnodes; v++) {
                names.addAll(families(v, true));
            }
            return names;
        }
    }

    /** Checkpoints of one subtask whose vnodes each got a few writes. */
    private record CheckpointPart(
            Shape shape, Path work, WriteBufferManager buffers, List<String> csv) {

        void run(int rounds) throws Exception {
            List<LayoutInstance> perVnode = new ArrayList<>();
            try {
                for (int v = 0; v < shape.vnodes(); v++) {
                    perVnode.add(
                            LayoutInstance.open(
                                    work.resolve("vnode-" + v),
                                    shape.families(v, false),
                                    buffers,
                                    false));
                }
                measure("instance-per-vnode", rounds, perVnode, false);
            } finally {
                perVnode.forEach(LayoutInstance::close);
            }
            try (LayoutInstance flinks =
                    LayoutInstance.open(
                            work.resolve("flink"), shape.families(0, false), buffers, false)) {
                measure("instance-per-subtask-flink", rounds, List.of(flinks), false);
            }
            for (boolean atomic : List.of(false, true)) {
                String layout = atomic ? "family-per-vnode-atomic-flush" : "family-per-vnode";
                try (LayoutInstance shared =
                        LayoutInstance.open(
                                work.resolve(layout), shape.allFamilies(0), buffers, atomic)) {
                    measure(layout, rounds, List.of(shared), true);
                }
            }
        }

        private void measure(
                String layout, int rounds, List<LayoutInstance> instances, boolean prefixed)
                throws Exception {
            Random random = new Random(42);
            byte[] value = new byte[1024];
            List<Double> kept = new ArrayList<>();
            List<Double> cpu = new ArrayList<>();
            try (WriteOptions noWal = new WriteOptions().setDisableWAL(true)) {
                for (int round = 0; round < rounds; round++) {
                    for (int v = 0; v < shape.vnodes(); v++) {
                        // one instance per vnode, or one for the whole subtask
                        LayoutInstance instance = instances.get(v % instances.size());
                        List<String> families = shape.families(v, prefixed);
                        for (int w = 0; w < shape.writesPerVnode(); w++) {
                            random.nextBytes(value);
                            instance.db()
                                    .put(
                                            instance.family(families.get(w % families.size())),
                                            noWal,
                                            ("key-" + random.nextInt(100_000)).getBytes(),
                                            value);
                        }
                    }
                    Thread.sleep(200);
                    Path checkpoints =
                            Files.createDirectories(work.resolve("chk-" + layout + "-" + round));
                    Timing timing = Timing.of(() -> checkpointAll(instances, checkpoints));
                    double millis = timing.seconds() * 1e3;
                    csv.add(
                            String.format(
                                    "checkpoint,%s,%d,total,%.2f,%.2f",
                                    layout, round, millis, timing.cpuSeconds() * 1e3));
                    if (round > 0) {
                        kept.add(millis);
                        cpu.add(timing.cpuSeconds() * 1e3);
                    }
                }
            }
            System.out.printf(
                    "checkpoint %-30s %d vnodes, ms per checkpoint (after the first): %s,"
                            + " CPU ms: %s%n",
                    layout, shape.vnodes(), format(kept), format(cpu));
        }

        /** A native checkpoint of each instance, one after the other, as the task thread does. */
        private static void checkpointAll(List<LayoutInstance> instances, Path dir)
                throws Exception {
            for (int i = 0; i < instances.size(); i++) {
                instances.get(i).checkpoint(dir.resolve("instance-" + i));
            }
        }
    }

    /** Moves of one filled vnode between two subtasks. */
    private record MovePart(Shape shape, Path work, WriteBufferManager buffers, List<String> csv) {

        void run(int moves) throws Exception {
            movePerInstance(moves);
            moveFamilies(moves, false);
            moveFamilies(moves, true);
        }

        /** Rhino now: the origin checkpoints the vnode's instance, the target opens it. */
        private void movePerInstance(int moves) throws Exception {
            List<String> families = shape.families(0, false);
            try (LayoutInstance origin =
                    LayoutInstance.open(work.resolve("vnode-0"), families, buffers, false)) {
                fill(origin, families, 0);
                for (int move = 0; move < moves; move++) {
                    Path shipped = work.resolve("shipped-" + move);
                    long start = System.nanoTime();
                    origin.checkpoint(shipped);
                    long exported = System.nanoTime();
                    try (LayoutInstance target =
                            LayoutInstance.open(shipped, families, buffers, false)) {
                        long installed = System.nanoTime();
                        check(target, families, 0);
                        record("instance-per-vnode", move, start, exported, installed, installed);
                    }
                    EmbeddedCluster.deleteRecursively(shipped);
                }
            }
        }

        /** One instance per subtask: the vnode's families leave one instance for the other. */
        private void moveFamilies(int moves, boolean acrossProcesses) throws Exception {
            String layout =
                    acrossProcesses
                            ? "family-per-vnode-across-processes"
                            : "family-per-vnode-in-process";
            Path dir = Files.createDirectories(work.resolve(layout));
            try (LayoutInstance first =
                            LayoutInstance.open(
                                    dir.resolve("subtask-0"),
                                    shape.allFamilies(0),
                                    buffers,
                                    false);
                    LayoutInstance second =
                            LayoutInstance.open(
                                    dir.resolve("subtask-1"),
                                    shape.allFamilies(shape.vnodes()),
                                    buffers,
                                    false)) {
                for (int v = 0; v < shape.vnodes(); v++) {
                    fill(first, shape.families(v, true), v);
                    fill(second, shape.families(shape.vnodes() + v, true), shape.vnodes() + v);
                }
                List<String> families = shape.families(0, true);
                for (int move = 0; move < moves; move++) {
                    // back and forth, so that each move leaves a filled vnode behind
                    LayoutInstance origin = move % 2 == 0 ? first : second;
                    LayoutInstance target = move % 2 == 0 ? second : first;
                    Path shipment = dir.resolve("move-" + move);
                    long start = System.nanoTime();
                    List<ExportImportFilesMetaData> exports =
                            export(origin, families, shipment.resolve("export"));
                    if (acrossProcesses) {
                        pack(exports, families, shipment);
                    }
                    long exported = System.nanoTime();
                    if (acrossProcesses) {
                        exports = receive(families, shipment);
                    }
                    for (int s = 0; s < families.size(); s++) {
                        target.importFamily(families.get(s), exports.get(s));
                    }
                    long installed = System.nanoTime();
                    for (String family : families) {
                        origin.drop(family);
                    }
                    long released = System.nanoTime();
                    exports.forEach(ExportImportFilesMetaData::close);
                    check(target, families, 0);
                    record(layout, move, start, exported, installed, released);
                    EmbeddedCluster.deleteRecursively(shipment);
                }
            }
        }

        /**
         * The origin's part of crossing a process: RocksJava cannot serialize export metadata, so
         * the exported files become an instance of their own, the shipment.
         */
        private void pack(
                List<ExportImportFilesMetaData> exports, List<String> families, Path shipment)
                throws RocksDBException {
            try (LayoutInstance packed =
                    LayoutInstance.open(shipment.resolve("transport"), List.of(), null, false)) {
                for (int s = 0; s < families.size(); s++) {
                    packed.importFamily(families.get(s), exports.get(s));
                }
            }
            exports.forEach(ExportImportFilesMetaData::close);
        }

        /** The target's part: opens the shipment and exports it again, for metadata to import. */
        private List<ExportImportFilesMetaData> receive(List<String> families, Path shipment)
                throws RocksDBException, IOException {
            try (LayoutInstance received =
                    LayoutInstance.open(shipment.resolve("transport"), families, null, false)) {
                return export(received, families, shipment.resolve("received"));
            }
        }

        private List<ExportImportFilesMetaData> export(
                LayoutInstance instance, List<String> families, Path dir)
                throws RocksDBException, IOException {
            Files.createDirectories(dir);
            List<ExportImportFilesMetaData> exports = new ArrayList<>();
            for (String family : families) {
                exports.add(instance.export(family, dir.resolve(family)));
            }
            return exports;
        }

        private void record(
                String layout, int move, long start, long exported, long installed, long released) {
            double export = (exported - start) / 1e6;
            double install = (installed - exported) / 1e6;
            double release = (released - installed) / 1e6;
            csv.add(String.format("move,%s,%d,export,%.2f,", layout, move, export));
            csv.add(String.format("move,%s,%d,install,%.2f,", layout, move, install));
            csv.add(String.format("move,%s,%d,release,%.2f,", layout, move, release));
            System.out.printf(
                    "move %-34s %d: export %.1f ms, install %.1f ms, release %.1f ms%n",
                    layout, move, export, install, release);
        }

        /** Writes the vnode's share of state, spread over its families, then flushes it. */
        private void fill(LayoutInstance instance, List<String> families, int vnode)
                throws Exception {
            Random keys = new Random(vnode);
            Random values = new Random(-1 - vnode);
            byte[] key = new byte[16];
            byte[] value = new byte[1024];
            try (WriteOptions noWal = new WriteOptions().setDisableWAL(true);
                    FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                for (long i = 0; i < shape.vnodeMegabytes() * 1024; i++) {
                    keys.nextBytes(key);
                    values.nextBytes(value);
                    instance.db()
                            .put(
                                    instance.family(families.get((int) (i % families.size()))),
                                    noWal,
                                    key,
                                    value);
                }
                for (String family : families) {
                    instance.db().flush(flush, instance.family(family));
                }
            }
            awaitCompactions(instance, families);
        }

        /** Moves measured while RocksDB still compacts the fill would measure the compaction. */
        private void awaitCompactions(LayoutInstance instance, List<String> families)
                throws RocksDBException, InterruptedException {
            for (String family : families) {
                ColumnFamilyHandle handle = instance.family(family);
                while (instance.db().getLongProperty(handle, "rocksdb.compaction-pending") > 0
                        || instance.db().getLongProperty(handle, "rocksdb.num-running-compactions")
                                > 0) {
                    Thread.sleep(100);
                }
            }
        }

        /** The first keys the fill wrote to the vnode must be readable from {@code instance}. */
        private void check(LayoutInstance instance, List<String> families, int vnode)
                throws RocksDBException {
            Random keys = new Random(vnode);
            byte[] key = new byte[16];
            for (int i = 0; i < CHECKED_KEYS; i++) {
                keys.nextBytes(key);
                ColumnFamilyHandle family = instance.family(families.get(i % families.size()));
                if (instance.db().get(family, key) == null) {
                    throw new IllegalStateException(
                            "Key " + i + " of vnode " + vnode + " missing after the move");
                }
            }
        }
    }

    private static String format(List<Double> millis) {
        return millis.stream().map(m -> String.format("%.1f", m)).toList().toString();
    }
}
