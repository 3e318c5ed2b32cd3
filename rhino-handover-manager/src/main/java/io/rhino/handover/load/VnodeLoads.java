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

package io.rhino.handover.load;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The load of each vnode of one Rhino operator as the policies see it: records per second over a
 * sliding window, from the routers' periodic counts, and state bytes, from the owning gates' latest
 * reports. Thread-safe; Flink-free.
 *
 * <p>Each router reports how many records it routed to each vnode during the period that just
 * ended. A vnode's rate is, summed over the routers, a router's counts in the window divided by the
 * time those reports cover, so a router that reported only twice is not averaged over the whole
 * window. Reports older than the window are dropped; a router silent for a whole window counts as
 * 0.
 */
public final class VnodeLoads {

    private record Report(long atMillis, long periodMillis, long[] recordsByVnode) {}

    private final int numVnodes;
    private final long windowMillis;
    private final Map<Integer, Deque<Report>> reportsByRouter = new HashMap<>();
    private final Map<Integer, Long> stateBytesByVnode = new HashMap<>();

    /**
     * @param numVnodes the operator's vnodes
     * @param window how far back rates look; positive
     */
    public VnodeLoads(int numVnodes, Duration window) {
        if (numVnodes < 1) {
            throw new IllegalArgumentException("numVnodes: " + numVnodes + " (expected: >= 1)");
        }
        Objects.requireNonNull(window, "window");
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window: " + window + " (expected: positive)");
        }
        this.numVnodes = numVnodes;
        this.windowMillis = window.toMillis();
    }

    /**
     * A router routed {@code recordsByVnode[v]} records to vnode {@code v} in the {@code
     * periodMillis} before {@code nowMillis}.
     */
    public synchronized void routerReport(
            int router, long[] recordsByVnode, long periodMillis, long nowMillis) {
        if (recordsByVnode.length != numVnodes) {
            throw new IllegalArgumentException(
                    "a report of "
                            + recordsByVnode.length
                            + " vnodes for an operator of "
                            + numVnodes);
        }
        if (periodMillis <= 0) {
            return; // nothing measured
        }
        Deque<Report> reports = reportsByRouter.computeIfAbsent(router, r -> new ArrayDeque<>());
        reports.addLast(new Report(nowMillis, periodMillis, recordsByVnode.clone()));
        expire(reports, nowMillis);
    }

    /** The gate owning {@code vnode} measured its state at {@code bytes}. */
    public synchronized void stateBytes(int vnode, long bytes) {
        if (vnode >= 0 && vnode < numVnodes && bytes >= 0) {
            stateBytesByVnode.put(vnode, bytes);
        }
    }

    /** Records per second routed to each vnode over the window ending at {@code nowMillis}. */
    public synchronized double[] recordsPerSecond(long nowMillis) {
        double[] rates = new double[numVnodes];
        for (Deque<Report> reports : reportsByRouter.values()) {
            expire(reports, nowMillis);
            long coveredMillis = 0;
            long[] sums = new long[numVnodes];
            for (Report report : reports) {
                coveredMillis += report.periodMillis();
                for (int vnode = 0; vnode < numVnodes; vnode++) {
                    sums[vnode] += report.recordsByVnode()[vnode];
                }
            }
            if (coveredMillis > 0) {
                for (int vnode = 0; vnode < numVnodes; vnode++) {
                    rates[vnode] += sums[vnode] * 1000.0 / coveredMillis;
                }
            }
        }
        return rates;
    }

    /** The last reported state size of {@code vnode}, or -1 if none was reported yet. */
    public synchronized long stateBytes(int vnode) {
        return stateBytesByVnode.getOrDefault(vnode, -1L);
    }

    /** Forgets every report, e.g. when the job restores a checkpoint. */
    public synchronized void clearRates() {
        reportsByRouter.clear();
    }

    private void expire(Deque<Report> reports, long nowMillis) {
        while (!reports.isEmpty() && reports.peekFirst().atMillis() <= nowMillis - windowMillis) {
            reports.removeFirst();
        }
    }
}
