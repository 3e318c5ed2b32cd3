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

package io.rhino.flink.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** A manifest reads back what was written, including the timer heads, and reads older versions. */
class VnodeManifestTest {

    @Test
    void timerHeadsReadBackPerVnode() throws IOException {
        VnodeManifest read = readBack(write(manifest(Map.of(1, heads(8, "a"), 3, heads(24, "b")))));

        assertThat(read.timerHeadsByVnode()).containsOnlyKeys(1, 3);
        assertThat(read.timerHeadsByVnode().get(1).toBytes()).isEqualTo(heads(8, "a").toBytes());
        assertThat(read.timerHeadsByVnode().get(3).toBytes()).isEqualTo(heads(24, "b").toBytes());
        assertThat(read.emptyVnodes()).containsExactly(0, 1, 2, 3);
        assertThat(read.replicaHolders()).containsExactly("127.0.0.2:6200");
    }

    @Test
    void damagedTimerHeadsAreIgnoredAndTheRestOfTheManifestIsRead() throws IOException {
        byte[] bytes = write(manifest(Map.of(1, heads(8, "a"), 3, heads(24, "b"))));
        byte[] first = heads(8, "a").toBytes();
        // the first vnode's heads start after its vnode and length: flip a byte in their middle
        int at = indexOf(bytes, first) + first.length / 2;
        bytes[at] ^= 0x10;

        VnodeManifest read = readBack(bytes);

        assertThat(read.timerHeadsByVnode().get(1).isEmpty()).as("damaged: none").isTrue();
        assertThat(read.timerHeadsByVnode().get(3).toBytes()).isEqualTo(heads(24, "b").toBytes());
        assertThat(read.emptyVnodes()).containsExactly(0, 1, 2, 3);
    }

    @Test
    void aVersion3ManifestReadsWithoutTimerHeads() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(VnodeManifest.MAGIC);
        out.writeInt(3);
        out.writeInt(0); // subtask
        out.writeInt(1); // parallelism
        out.writeInt(128); // key groups
        out.writeInt(4); // vnodes
        out.writeLong(9); // checkpoint
        out.writeInt(0); // handles
        out.writeInt(2); // empty vnodes
        out.writeInt(0);
        out.writeInt(2);
        out.writeInt(1); // holders
        out.writeUTF("127.0.0.2:6200");

        VnodeManifest read = readBack(bytes.toByteArray());

        assertThat(read.checkpointId()).isEqualTo(9);
        assertThat(read.emptyVnodes()).containsExactly(0, 2);
        assertThat(read.replicaHolders()).containsExactly("127.0.0.2:6200");
        assertThat(read.timerHeadsByVnode()).isEmpty();
    }

    @Test
    void aManifestWithoutTimerHeadsIsWrittenAsVersion3ForEarlierRhinoVersions() throws IOException {
        byte[] bytes = write(manifest(Map.of()));

        assertThat(new DataInputStream(new ByteArrayInputStream(bytes, 4, 4)).readInt())
                .isEqualTo(3);
        VnodeManifest read = readBack(bytes);
        assertThat(read.emptyVnodes()).containsExactly(0, 1, 2, 3);
        assertThat(read.replicaHolders()).containsExactly("127.0.0.2:6200");
        assertThat(read.timerHeadsByVnode()).isEmpty();
        assertThat(
                        new DataInputStream(
                                        new ByteArrayInputStream(
                                                write(manifest(Map.of(1, heads(8, "a")))), 4, 4))
                                .readInt())
                .isEqualTo(VnodeManifest.VERSION);
    }

    @Test
    void aTruncatedManifestFails() throws IOException {
        byte[] bytes = write(manifest(Map.of(1, heads(8, "a"))));
        byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 10);

        assertThatThrownBy(() -> readBack(truncated)).isInstanceOf(IOException.class);
    }

    private static VnodeManifest manifest(Map<Integer, TimerQueueHeads> heads) {
        return new VnodeManifest(
                0,
                1,
                128,
                4,
                7,
                new TreeMap<>(),
                new TreeSet<>(List.of(0, 1, 2, 3)),
                List.of("127.0.0.2:6200"),
                new TreeMap<>(heads));
    }

    /** Heads of 32 key groups from {@code firstKeyGroup}: every other one known, some empty. */
    private static TimerQueueHeads heads(int firstKeyGroup, String tag) {
        byte[][] heads = new byte[32][];
        BitSet known = new BitSet(32);
        for (int i = 0; i < 32; i += 2) {
            known.set(i);
            if (i % 4 == 0) {
                int keyGroup = firstKeyGroup + i;
                heads[i] =
                        new byte[] {(byte) (keyGroup >> 8), (byte) keyGroup, (byte) tag.charAt(0)};
            }
        }
        return new TimerQueueHeads(
                Map.of(
                        "timers-" + tag,
                        new TimerQueueHeads.KeyGroupHeads(firstKeyGroup, heads, known)));
    }

    private static byte[] write(VnodeManifest manifest) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        manifest.write(new DataOutputStream(bytes));
        return bytes.toByteArray();
    }

    private static VnodeManifest readBack(byte[] bytes) throws IOException {
        return VnodeManifest.read(new DataInputStream(new ByteArrayInputStream(bytes)), null);
    }

    private static int indexOf(byte[] bytes, byte[] part) {
        outer:
        for (int i = 0; i <= bytes.length - part.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (bytes[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
