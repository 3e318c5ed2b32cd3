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

package io.rhino.benchmarks.handover;

import io.rhino.core.routing.VnodeLayout;
import java.util.BitSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.datagen.source.GeneratorFunction;

/**
 * Generates the handover benchmark's input: first {@code fillRecords} fill records at full speed,
 * whose keys all fall into the chosen vnodes (so the state to move has a known size), then probe
 * records over {@code probeKeys} keys of every vnode at {@code probeRate} per second, forever.
 *
 * <p>Run with parallelism 1: the probe pacing assumes one reader.
 */
public final class LoadGenerator implements GeneratorFunction<Long, LoadEvent> {

    private static final long serialVersionUID = 1L;

    private final long fillRecords;
    private final int valueBytes;
    private final VnodeLayout layout;
    private final BitSet filledVnodes;
    private final int probeKeys;
    private final int probeRate;

    private transient long nextCandidateKey;
    private transient long probeStartNanos;
    private transient long firstProbeIndex;

    /**
     * @param filledVnodes the vnodes whose keys the fill records use
     * @param probeKeys probe keys; key {@code k} of them is {@code -1 - k}, so probes never touch
     *     the filled values
     */
    public LoadGenerator(
            long fillRecords,
            int valueBytes,
            VnodeLayout layout,
            BitSet filledVnodes,
            int probeKeys,
            int probeRate) {
        if (filledVnodes.isEmpty()) {
            throw new IllegalArgumentException("filledVnodes: empty (expected: at least one)");
        }
        this.fillRecords = fillRecords;
        this.valueBytes = valueBytes;
        this.layout = layout;
        this.filledVnodes = (BitSet) filledVnodes.clone();
        this.probeKeys = probeKeys;
        this.probeRate = probeRate;
    }

    @Override
    public void open(SourceReaderContext readerContext) {
        nextCandidateKey = 0;
        probeStartNanos = -1;
    }

    @Override
    public LoadEvent map(Long index) throws InterruptedException {
        if (index < fillRecords) {
            byte[] payload = new byte[valueBytes];
            ThreadLocalRandom.current().nextBytes(payload); // incompressible, like real values
            return new LoadEvent(nextFillKey(), System.currentTimeMillis(), payload);
        }
        pace(index);
        return new LoadEvent(-1 - (index % probeKeys), System.currentTimeMillis(), null);
    }

    private long nextFillKey() {
        while (!filledVnodes.get(layout.vnodeOfKey(nextCandidateKey))) {
            nextCandidateKey++;
        }
        return nextCandidateKey++;
    }

    /** Sleeps until probe {@code index} is due, so probes arrive at {@code probeRate}. */
    private void pace(long index) throws InterruptedException {
        long now = System.nanoTime();
        if (probeStartNanos < 0) {
            probeStartNanos = now;
            firstProbeIndex = index;
        }
        long due = probeStartNanos + (index - firstProbeIndex) * 1_000_000_000L / probeRate;
        if (due > now) {
            TimeUnit.NANOSECONDS.sleep(due - now);
        }
    }
}
