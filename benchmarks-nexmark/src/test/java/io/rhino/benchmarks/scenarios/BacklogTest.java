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

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.benchmarks.harness.ThroughputMeter;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** A backlog counts as worked off only once the job reads no faster than input is produced. */
class BacklogTest {

    private final AtomicLong clock = new AtomicLong(0);
    private final AtomicLong produced = new AtomicLong(0);
    private final ThroughputMeter consumed = new ThroughputMeter(clock::get, 0);
    private final BooleanSupplier drained =
            Backlog.consumedAsProduced(produced::get, consumed, clock::get);

    @Test
    void aJobReadingFasterThanTheProducerIsStillDraining() {
        assertThat(drained.getAsBoolean()).as("no rate known yet").isFalse();

        second(1_000, 20_000); // the producer nearly paused, the job reads its backlog
        assertThat(drained.getAsBoolean()).isFalse();

        second(1_000, 1_050); // the backlog is gone: the job reads what comes
        assertThat(drained.getAsBoolean()).isTrue();
    }

    /**
     * One second in which the producer wrote {@code producedRecords} and the job read {@code
     * consumedRecords}.
     */
    private void second(long producedRecords, long consumedRecords) {
        consumed.record(consumedRecords, consumedRecords * 100);
        produced.addAndGet(producedRecords);
        clock.addAndGet(1_000);
        consumed.tick();
    }
}
