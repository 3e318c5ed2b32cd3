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

package io.rhino.benchmarks.nexmark.queries;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Fill ids: apart from the generator's, and ascending in the order RocksDB sorts keys. */
class FillRecordsTest {

    @Test
    void fillIdsAreNegativeAndDistinct() {
        assertThat(FillRecords.fillId(0)).isNegative();
        assertThat(FillRecords.fillId(Long.MAX_VALUE)).isNegative();
        assertThat(FillRecords.fillId(1)).isNotEqualTo(FillRecords.fillId(0));
    }

    @Test
    void laterFillKeysSortAfterEarlierOnesAsSerializedBytes() throws IOException {
        byte[] previous = serialized(FillRecords.fillId(0));
        for (long id = 1; id < 100_000; id += 997) {
            byte[] next = serialized(FillRecords.fillId(id));
            assertThat(java.util.Arrays.compareUnsigned(next, previous))
                    .as("fill key of generator id %d", id)
                    .isPositive();
            previous = next;
        }
    }

    private static byte[] serialized(long key) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(8);
        LongSerializer.INSTANCE.serialize(key, out);
        return out.getCopyOfBuffer();
    }
}
