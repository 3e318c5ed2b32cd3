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
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessResourceSamplerTest {

    private static final long START = 5_000_000L;

    @TempDir Path proc;

    @Test
    void parsesStatWithSpacesAndParenthesesInTheCommand() {
        String stat =
                "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 12 0 0 0 150 25 0 0 20 0 40 0"
                        + " 123 456 789";
        assertThat(ProcFs.parseStatCpuMillis(stat)).hasValue(1750);
    }

    @Test
    void sumsFiguresOfAllProcessesAndComputesRates() throws Exception {
        writeProcess(1, 100, 50, 1000, 4096, 8192);
        writeProcess(2, 200, 0, 3000, 0, 100);
        writeNetDev(1000, 2000, 10, 20);
        FakeClock clock = new FakeClock(START);
        ProcessResourceSampler sampler =
                new ProcessResourceSampler(clock, START, List.of(1L, 2L), proc);

        ResourceSample first = sampler.sample();
        assertThat(first.second()).isZero();
        assertThat(first.cpuMillis()).isEqualTo((100 + 50 + 200) * 10L);
        assertThat(first.rssBytes()).isEqualTo((1000 + 3000) * 1024L);
        assertThat(first.diskReadBytes()).isEqualTo(4096);
        assertThat(first.diskWriteBytes()).isEqualTo(8292);
        assertThat(first.netRxBytes()).isEqualTo(1010);
        assertThat(first.netTxBytes()).isEqualTo(2020);
        assertThat(first.cpuPercent()).isNull();
        assertThat(first.netRxBytesPerSecond()).isNull();

        // Within the same second: no new sample.
        clock.set(START + 500);
        assertThat(sampler.sample()).isSameAs(first);

        writeProcess(1, 150, 100, 1000, 4096 + 2000, 8192);
        writeNetDev(1000 + 500, 2000, 10, 20 + 1000);
        clock.set(START + 2000);
        ResourceSample second = sampler.sample();
        assertThat(second.second()).isEqualTo(2);
        // 1000 ms of CPU over 2 s of wall time.
        assertThat(second.cpuPercent()).isCloseTo(50.0, within(1e-9));
        assertThat(second.diskReadBytesPerSecond()).isCloseTo(1000.0, within(1e-9));
        assertThat(second.diskWriteBytesPerSecond()).isCloseTo(0.0, within(1e-9));
        assertThat(second.netRxBytesPerSecond()).isCloseTo(250.0, within(1e-9));
        assertThat(second.netTxBytesPerSecond()).isCloseTo(500.0, within(1e-9));
        assertThat(sampler.samples()).containsExactly(first, second);
    }

    @Test
    void unreadableFilesLeaveTheirFiguresEmpty() throws Exception {
        writeProcess(7, 100, 50, 1000, 1, 2);
        Files.delete(proc.resolve("7").resolve("io")); // e.g. no permission for another user's io
        FakeClock clock = new FakeClock(START);
        ProcessResourceSampler sampler =
                new ProcessResourceSampler(clock, START, List.of(7L), proc);
        sampler.sample();
        clock.set(START + 1000);
        ResourceSample sample = sampler.sample();

        assertThat(sample.cpuMillis()).isEqualTo(1500);
        assertThat(sample.rssBytes()).isEqualTo(1000 * 1024L);
        assertThat(sample.diskReadBytes()).isNull();
        assertThat(sample.diskReadBytesPerSecond()).isNull();
        assertThat(sample.netRxBytes()).isNull(); // no net/dev at all
        assertThat(sample.netTxBytesPerSecond()).isNull();
        assertThat(sample.cpuPercent()).isCloseTo(0.0, within(1e-9));
    }

    @Test
    void currentProcessOnLinuxHasNonNegativeMonotonicFigures() throws Exception {
        assumeThat(Files.isReadable(Paths.get("/proc/self/stat"))).isTrue();
        FakeClock clock = new FakeClock(START);
        ProcessResourceSampler sampler = ProcessResourceSampler.forCurrentProcess(clock, START);
        for (int i = 0; i < 4; i++) {
            burnCpuAndWriteFile(i);
            clock.advance(1000);
            sampler.sample();
        }

        List<ResourceSample> samples = sampler.samples();
        assertThat(samples).hasSize(4);
        for (int i = 0; i < samples.size(); i++) {
            ResourceSample s = samples.get(i);
            assertThat(s.cpuMillis()).isNotNull().isNotNegative();
            assertThat(s.rssBytes()).isNotNull().isPositive();
            assertThat(s.netRxBytes()).isNotNull().isNotNegative();
            assertThat(s.netTxBytes()).isNotNull().isNotNegative();
            if (i > 0) {
                ResourceSample p = samples.get(i - 1);
                assertThat(s.cpuMillis()).isGreaterThanOrEqualTo(p.cpuMillis());
                assertThat(s.netRxBytes()).isGreaterThanOrEqualTo(p.netRxBytes());
                assertThat(s.netTxBytes()).isGreaterThanOrEqualTo(p.netTxBytes());
                assertThat(s.cpuPercent()).isNotNegative();
                if (s.diskWriteBytes() != null && p.diskWriteBytes() != null) {
                    assertThat(s.diskWriteBytes()).isGreaterThanOrEqualTo(p.diskWriteBytes());
                    assertThat(s.diskReadBytes()).isGreaterThanOrEqualTo(p.diskReadBytes());
                    assertThat(s.diskWriteBytesPerSecond()).isNotNegative();
                }
            }
        }
        // The JVM used some CPU between the first and the last sample.
        assertThat(samples.get(3).cpuMillis()).isGreaterThan(samples.get(0).cpuMillis());
    }

    private void burnCpuAndWriteFile(int round) throws Exception {
        long end = System.nanoTime() + 60_000_000L;
        long x = 0;
        while (System.nanoTime() < end) {
            x += Long.numberOfTrailingZeros(x + System.nanoTime());
        }
        Files.write(proc.resolve("burn" + round), new byte[(int) (64 * 1024 + (x & 1))]);
    }

    private void writeProcess(long pid, long utime, long stime, long rssKb, long read, long write)
            throws Exception {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(
                dir.resolve("stat"),
                pid
                        + " (java) S 1 1 1 0 -1 0 0 0 0 0 "
                        + utime
                        + " "
                        + stime
                        + " 0 0 20 0 40 0 1 2 3\n");
        Files.writeString(
                dir.resolve("status"),
                "Name:\tjava\nVmPeak:\t 9999 kB\nVmRSS:\t  " + rssKb + " kB\nThreads:\t40\n");
        Files.writeString(
                dir.resolve("io"),
                "rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: "
                        + read
                        + "\nwrite_bytes: "
                        + write
                        + "\ncancelled_write_bytes: 0\n");
    }

    private void writeNetDev(long loRx, long loTx, long ethRx, long ethTx) throws Exception {
        Path net = Files.createDirectories(proc.resolve("net"));
        Files.writeString(
                net.resolve("dev"),
                "Inter-|   Receive                                                |  Transmit\n"
                        + " face |bytes    packets errs drop fifo frame compressed multicast|"
                        + "bytes    packets errs drop fifo colls carrier compressed\n"
                        + "    lo: "
                        + loRx
                        + "      10    0    0    0     0          0         0 "
                        + loTx
                        + "      10    0    0    0     0       0          0\n"
                        + "  eth0: "
                        + ethRx
                        + "       1    0    0    0     0          0         0 "
                        + ethTx
                        + "       1    0    0    0     0       0          0\n");
    }
}
