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

package io.rhino.flink.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Held records stay in arrival order across memory and disk; memory stays near its bound however
 * many records wait; records of vnodes still pending stay held; nothing is left on disk.
 */
class IncomingVnodeBufferTest {

    @TempDir Path spill;

    @Test
    void recordsBeyondTheMemoryBoundSpillAndReplayInArrivalOrder() throws Exception {
        IncomingVnodeBuffer<String> buffer =
                new IncomingVnodeBuffer<>(
                        StringSerializer.INSTANCE, 4096, new File[] {spill.toFile()});
        buffer.expect(Set.of(1, 2));
        List<String> vnode1 = new ArrayList<>();
        List<String> vnode2 = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            String value = "record-" + i + "-" + "x".repeat(i % 50);
            int vnode = i % 3 == 0 ? 2 : 1;
            (vnode == 1 ? vnode1 : vnode2).add(value);
            buffer.add(
                    vnode,
                    i % 2 == 0 ? new StreamRecord<>(value, 1_000L + i) : new StreamRecord<>(value));
        }
        assertThat(buffer.size()).isEqualTo(50_000);
        assertThat(buffer.memoryBytes()).as("bytes in memory").isLessThan(8192);
        assertThat(buffer.spilledBytes()).as("bytes on disk").isGreaterThan(1_000_000);
        assertThat(filesIn(spill)).hasSize(1);

        List<StreamRecord<String>> replayed = new ArrayList<>();
        int count = buffer.release(Set.of(1), replayed::add);

        assertThat(count).isEqualTo(vnode1.size());
        assertThat(replayed.stream().map(StreamRecord::getValue).toList()).isEqualTo(vnode1);
        for (StreamRecord<String> record : replayed) {
            int i = Integer.parseInt(record.getValue().split("-")[1]);
            assertThat(record.hasTimestamp()).isEqualTo(i % 2 == 0);
            if (record.hasTimestamp()) {
                assertThat(record.getTimestamp()).isEqualTo(1_000L + i);
            }
        }
        assertThat(buffer.isHolding()).isTrue();
        assertThat(buffer.size()).as("vnode 2's records still wait").isEqualTo(vnode2.size());

        List<String> rest = new ArrayList<>();
        buffer.release(Set.of(2), record -> rest.add(record.getValue()));
        assertThat(rest).isEqualTo(vnode2);
        assertThat(buffer.isHolding()).isFalse();
        assertThat(buffer.size()).isZero();
        buffer.close();
        assertThat(filesIn(spill)).as("spill files after the replay").isEmpty();
    }

    @Test
    void fewRecordsNeverTouchTheDisk() throws Exception {
        IncomingVnodeBuffer<String> buffer =
                new IncomingVnodeBuffer<>(
                        StringSerializer.INSTANCE, 1 << 20, new File[] {spill.toFile()});
        buffer.expect(Set.of(4));
        buffer.add(4, new StreamRecord<>("a", 1));
        buffer.add(4, new StreamRecord<>("b"));
        assertThat(buffer.spilledBytes()).isZero();
        List<String> replayed = new ArrayList<>();
        buffer.release(Set.of(4), record -> replayed.add(record.getValue()));
        assertThat(replayed).containsExactly("a", "b");
        assertThat(filesIn(spill)).isEmpty();
    }

    @Test
    void closingWhileHoldingDeletesTheSpillFile() throws Exception {
        IncomingVnodeBuffer<String> buffer =
                new IncomingVnodeBuffer<>(
                        StringSerializer.INSTANCE, 16, new File[] {spill.toFile()});
        buffer.expect(Set.of(0));
        for (int i = 0; i < 100; i++) {
            buffer.add(0, new StreamRecord<>("value-" + i));
        }
        assertThat(filesIn(spill)).hasSize(1);
        buffer.close();
        assertThat(filesIn(spill)).isEmpty();
    }

    private static List<Path> filesIn(Path directory) throws Exception {
        try (Stream<Path> files = Files.list(directory)) {
            return files.toList();
        }
    }
}
