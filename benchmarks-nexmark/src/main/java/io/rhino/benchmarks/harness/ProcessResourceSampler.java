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

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples CPU time, resident memory and disk bytes of some processes (by default this JVM, which
 * holds an embedded Flink cluster) and the network bytes of the machine, at most once per second of
 * the run. Reads Linux's {@code /proc}; a figure whose file cannot be read is left empty (null)
 * rather than failing the run, so the sampler also runs, with fewer columns, elsewhere.
 */
public final class ProcessResourceSampler {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessResourceSampler.class);

    private final LongSupplier clock;
    private final long startMillis;
    private final List<Long> pids;
    private final ProcFs procFs;
    private final long ownPid = ProcessHandle.current().pid();

    // Guarded by this.
    private final List<ResourceSample> samples = new ArrayList<>();
    private boolean warned;

    /**
     * @param clockMillis the run's clock
     * @param startMillis start of the run (second 0)
     * @param pids processes whose figures are summed
     * @param procRoot where {@code /proc} is mounted ({@code /proc} but in tests)
     */
    public ProcessResourceSampler(
            LongSupplier clockMillis, long startMillis, List<Long> pids, Path procRoot) {
        if (pids.isEmpty()) {
            throw new IllegalArgumentException("No process to sample");
        }
        this.clock = clockMillis;
        this.startMillis = startMillis;
        this.pids = List.copyOf(pids);
        this.procFs = new ProcFs(procRoot);
    }

    /** A sampler of this JVM (and of {@code otherPids}) reading {@code /proc}. */
    public static ProcessResourceSampler forCurrentProcess(
            LongSupplier clockMillis, long startMillis, long... otherPids) {
        List<Long> pids = new ArrayList<>();
        pids.add(ProcessHandle.current().pid());
        for (long pid : otherPids) {
            pids.add(pid);
        }
        return new ProcessResourceSampler(clockMillis, startMillis, pids, Paths.get("/proc"));
    }

    /**
     * Takes a sample unless one was already taken in the current second of the run.
     *
     * @return the new sample, or the latest one when none was taken
     */
    public synchronized ResourceSample sample() {
        long now = clock.getAsLong();
        long second = Seconds.index(startMillis, now);
        ResourceSample previous = samples.isEmpty() ? null : samples.get(samples.size() - 1);
        if (previous != null && previous.second() == second) {
            return previous;
        }
        Long cpu = sum(this::cpuMillis);
        Long rss = sum(pid -> procFs.rssBytes(pid));
        Long read = sum(pid -> procFs.ioBytes(pid, "read_bytes"));
        Long write = sum(pid -> procFs.ioBytes(pid, "write_bytes"));
        long[] net = procFs.netBytes();
        Long rx = net == null ? null : net[0];
        Long tx = net == null ? null : net[1];
        double elapsed = previous == null ? 0 : (now - previous.atMillis()) / 1000.0;
        ResourceSample sample =
                new ResourceSample(
                        second,
                        now,
                        cpu,
                        previous == null ? null : percent(rate(previous.cpuMillis(), cpu, elapsed)),
                        rss,
                        read,
                        write,
                        previous == null ? null : rate(previous.diskReadBytes(), read, elapsed),
                        previous == null ? null : rate(previous.diskWriteBytes(), write, elapsed),
                        rx,
                        tx,
                        previous == null ? null : rate(previous.netRxBytes(), rx, elapsed),
                        previous == null ? null : rate(previous.netTxBytes(), tx, elapsed));
        samples.add(sample);
        warnOnceAboutGaps(sample);
        return sample;
    }

    /** The sampled processes' CPU time now, in milliseconds; null when it cannot be read. */
    public Long cpuMillisNow() {
        return sum(this::cpuMillis);
    }

    /** All samples so far, in order. */
    public synchronized List<ResourceSample> samples() {
        return List.copyOf(samples);
    }

    private OptionalLong cpuMillis(long pid) {
        OptionalLong fromProc = procFs.cpuMillis(pid);
        if (fromProc.isPresent() || pid != ownPid) {
            return fromProc;
        }
        // Without /proc, the JVM still knows its own CPU time.
        if (ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            long nanos = os.getProcessCpuTime();
            return nanos < 0 ? OptionalLong.empty() : OptionalLong.of(nanos / 1_000_000);
        }
        return OptionalLong.empty();
    }

    /** The sum over all pids, or null when any of them cannot be read (a partial sum misleads). */
    private Long sum(Function<Long, OptionalLong> reader) {
        long total = 0;
        for (long pid : pids) {
            OptionalLong value = reader.apply(pid);
            if (value.isEmpty()) {
                return null;
            }
            total += value.getAsLong();
        }
        return total;
    }

    /** Change per second of a cumulative figure; null when either end is unknown. */
    private static Double rate(Long before, Long after, double seconds) {
        if (before == null || after == null || seconds <= 0) {
            return null;
        }
        return Math.max(0, after - before) / seconds;
    }

    private static Double percent(Double millisPerSecond) {
        return millisPerSecond == null ? null : millisPerSecond / 10.0;
    }

    private void warnOnceAboutGaps(ResourceSample sample) {
        if (!warned
                && (sample.cpuMillis() == null
                        || sample.rssBytes() == null
                        || sample.diskReadBytes() == null
                        || sample.netRxBytes() == null)) {
            warned = true;
            LOG.warn(
                    "Some resource figures of pids {} are unreadable and stay empty: {}",
                    pids,
                    sample);
        }
    }
}
