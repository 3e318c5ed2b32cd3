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

package io.rhino.benchmarks;

import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.cli.BenchmarkMain;
import io.rhino.benchmarks.cluster.EmbeddedCluster;
import io.rhino.benchmarks.handover.HandoverReport;
import io.rhino.benchmarks.replication.FsyncedFiles;
import io.rhino.benchmarks.replication.MemoryPeaks;
import io.rhino.benchmarks.replication.ReplicationChain;
import io.rhino.benchmarks.replication.ReplicationReport;
import io.rhino.benchmarks.replication.ReplicationReport.Row;
import io.rhino.benchmarks.replication.Timing;
import io.rhino.replication.ReplicationConfig;
import io.rhino.replication.ReplicationTls;
import io.rhino.replication.SelfSignedKeyStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Throughput of chain replication ({@code rhino-replication}) against the disk it writes to, in one
 * run on one directory: first the disk's sequential write throughput with every file forced to disk
 * (what a replica store does with each file it receives), then, for each replication factor r, r
 * services on 127.0.0.1..r replicate the same source files from the primary along the chain of the
 * r - 1 others, asked for all files at once as a vnode's files are at a checkpoint (the primary
 * keeps {@code --streams-per-peer} of them in flight). Reports GB/s of source bytes, process CPU
 * seconds per GB, the ratio to the disk baseline and the peaks of the members' Netty memory.
 */
public final class ReplicationThroughputBenchmark {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicationThroughputBenchmark.class);
    private static final int MAX_FACTOR = 8;

    /**
     * What one invocation measures.
     *
     * @param dir the base directory; the run works in a fresh subdirectory that it removes
     */
    public record Settings(
            Path dir,
            long totalBytes,
            long fileBytes,
            List<Integer> factors,
            boolean tls,
            int streamsPerPeer,
            int filesAtOnce,
            Path out) {}

    private ReplicationThroughputBenchmark() {}

    public static void main(String[] argv) {
        BenchmarkMain.exit(
                "Replication throughput benchmark",
                () -> {
                    run(argv);
                    return true;
                });
    }

    /**
     * Parses the flags, measures, prints the table and writes the CSV.
     *
     * @return the report, or null when only the usage was printed
     */
    public static ReplicationReport run(String[] argv) throws Exception {
        Args args =
                new Args("ReplicationThroughputBenchmark")
                        .flag(
                                "dir",
                                System.getProperty("java.io.tmpdir"),
                                "base directory on the disk to measure (stores, sources and"
                                        + " baseline go in a subdirectory removed at the end)")
                        .flag("size-gb", 4, "bytes to replicate per case, in GB (2^30 bytes)")
                        .flag("file-mb", 64, "bytes of each file, in MB (RocksDB SSTs: 64)")
                        .flag("factors", "2,3", "replication factors, comma-separated")
                        .flag(
                                "tls",
                                false,
                                "also measure each factor with mutual TLS between the members"
                                        + " (a self-signed certificate made with the JDK's"
                                        + " keytool)")
                        .flag(
                                "streams-per-peer",
                                ReplicationConfig.DEFAULT_STREAMS_PER_PEER,
                                "files the primary sends at once down the chain"
                                        + " (rhino.replication.streams-per-peer; a number at"
                                        + " least the file count sends them all at once)")
                        .flag(
                                "files-at-once",
                                0,
                                "files of the round in flight at once, as a vnode's checkpoint"
                                        + " round keeps 4 (0: all at once)")
                        .flag("out", "benchmarks-nexmark/target/replication.csv", "CSV file");
        if (!args.parse(argv)) {
            return null;
        }
        long totalBytes = (long) (args.getPositiveDouble("size-gb") * ReplicationReport.GB);
        long fileBytes = (long) args.getInt("file-mb", 1) << 20;
        Settings settings =
                new Settings(
                        Paths.get(args.get("dir")),
                        Math.max(1, totalBytes),
                        fileBytes,
                        factors(args.get("factors")),
                        args.getBoolean("tls"),
                        args.getInt("streams-per-peer", 1),
                        args.getInt("files-at-once", 0),
                        Paths.get(args.get("out")));
        ReplicationReport report = measure(settings);
        report.print(System.out);
        report.writeCsv(settings.out());
        LOG.info("Wrote {}", settings.out().toAbsolutePath());
        return report;
    }

    private static List<Integer> factors(String value) {
        List<Integer> factors = new ArrayList<>();
        for (String part : value.split(",")) {
            int factor;
            try {
                factor = Integer.parseInt(part.trim());
            } catch (NumberFormatException e) {
                factor = -1;
            }
            if (factor < 2 || factor > MAX_FACTOR) {
                throw new IllegalArgumentException(
                        "Flag --factors needs integers from 2 to "
                                + MAX_FACTOR
                                + ", comma-separated, got '"
                                + value
                                + "'.");
            }
            factors.add(factor);
        }
        return factors;
    }

    /** Writes the sources, measures the disk and then each factor; removes what it wrote. */
    public static ReplicationReport measure(Settings settings) throws Exception {
        Files.createDirectories(settings.dir());
        requireFreeSpace(settings);
        Path work = Files.createTempDirectory(settings.dir(), "rhino-replication-bench-");
        try {
            List<Long> sizes = FsyncedFiles.sizes(settings.totalBytes(), settings.fileBytes());
            FsyncedFiles writer = new FsyncedFiles(42);
            LOG.info(
                    "Writing {} of source files in {} files (not timed)",
                    HandoverReport.bytes(settings.totalBytes()),
                    sizes.size());
            Map<String, Path> sources = writer.writeSources(work.resolve("source"), sizes);

            LOG.info(
                    "Disk baseline: writing {}, each file forced to disk",
                    HandoverReport.bytes(settings.totalBytes()));
            Path baselineDir = work.resolve("baseline");
            Timing diskTiming = Timing.of(() -> writer.writeBaseline(baselineDir, sizes));
            EmbeddedCluster.deleteRecursively(baselineDir);
            Row disk =
                    new Row(
                            "disk",
                            1,
                            sizes.size(),
                            settings.totalBytes(),
                            settings.totalBytes(),
                            diskTiming,
                            MemoryPeaks.NONE,
                            MemoryPeaks.NONE);

            List<ReplicationTls> securities = new ArrayList<>();
            securities.add(null);
            if (settings.tls()) {
                String password = "benchmark-only";
                securities.add(
                        SelfSignedKeyStore.tls(
                                SelfSignedKeyStore.create(
                                        work.resolve("certificates"), "members", password),
                                password));
            }
            List<Row> replication = new ArrayList<>();
            for (ReplicationTls tls : securities) {
                for (int factor : settings.factors()) {
                    replication.add(
                            measureChain(
                                    work.resolve((tls == null ? "r" : "tls-r") + factor),
                                    factor,
                                    sources,
                                    tls,
                                    settings.streamsPerPeer(),
                                    settings.filesAtOnce()));
                }
            }
            return new ReplicationReport(settings.dir(), disk, replication);
        } finally {
            EmbeddedCluster.deleteRecursively(work);
        }
    }

    private static Row measureChain(
            Path dir,
            int factor,
            Map<String, Path> sources,
            ReplicationTls tls,
            int streamsPerPeer,
            int filesAtOnce)
            throws Exception {
        long bytes = 0;
        for (Path source : sources.values()) {
            bytes += Files.size(source);
        }
        // a failed run ends by the timeout, not by hanging; 2 MB/s is far below any real disk
        Duration timeout = Duration.ofSeconds(60 + bytes / (2 << 20));
        try (ReplicationChain chain =
                ReplicationChain.start(dir, factor, timeout, tls, streamsPerPeer, filesAtOnce)) {
            // connects and authenticates the chain's hops and warms up the JIT, outside the timing
            Map.Entry<String, Path> first = sources.entrySet().iterator().next();
            String warmUp = "warmup/" + first.getKey().replace('/', '-');
            chain.replicate(Map.of(warmUp, first.getValue()));
            chain.delete(Set.of(warmUp));

            LOG.info(
                    "Replication factor {}: replicating {} to {}",
                    factor,
                    HandoverReport.bytes(bytes),
                    chain.chain());
            MemoryPeaks memory = MemoryPeaks.start();
            Timing timing;
            try (memory) {
                timing = Timing.of(() -> chain.replicate(sources));
            }
            chain.verifySizes(sources);
            return new Row(
                    tls == null ? "replication" : "replication-tls",
                    factor,
                    sources.size(),
                    bytes,
                    bytes * (factor - 1),
                    timing,
                    memory.inUseBytes(),
                    memory.reservedBytes());
        }
    }

    /**
     * Refuses a run the disk cannot hold. Each case's copies are removed before the next starts, so
     * the peak is the sources plus the largest case: the baseline's one copy or r - 1 replicas.
     */
    private static void requireFreeSpace(Settings settings) throws IOException {
        int maxFactor = settings.factors().stream().mapToInt(Integer::intValue).max().orElse(2);
        long peak = settings.totalBytes() * (1 + Math.max(1, maxFactor - 1));
        // headroom for checksum files, directories and whatever else writes to the disk meanwhile
        long needed = peak + peak / 10 + (256L << 20);
        long usable = Files.getFileStore(settings.dir()).getUsableSpace();
        if (usable < needed) {
            throw new IllegalArgumentException(
                    String.format(
                            "Not enough free space in %s: replicating %s at factors %s needs about"
                                    + " %s (the sources, plus the largest case's copies, plus"
                                    + " 10%%), but only %s is free. Lower --size-gb or pick"
                                    + " another --dir.",
                            settings.dir().toAbsolutePath(),
                            HandoverReport.bytes(settings.totalBytes()),
                            settings.factors(),
                            HandoverReport.bytes(needed),
                            HandoverReport.bytes(usable)));
        }
    }
}
