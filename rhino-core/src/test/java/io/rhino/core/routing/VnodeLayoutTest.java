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

package io.rhino.core.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VnodeLayoutTest {

    @Test
    void evenSplit() {
        VnodeLayout layout = new VnodeLayout(128, 16);

        assertThat(layout.keyGroupsOf(0)).isEqualTo(new KeyGroupSpan(0, 7));
        assertThat(layout.keyGroupsOf(3)).isEqualTo(new KeyGroupSpan(24, 31));
        assertThat(layout.keyGroupsOf(15)).isEqualTo(new KeyGroupSpan(120, 127));
        assertThat(layout.vnodeOfKeyGroup(23)).isEqualTo(2);
        assertThat(layout.vnodeOfKeyGroup(24)).isEqualTo(3);
        assertThat(layout.vnodeOfKeyGroup(31)).isEqualTo(3);
        assertThat(layout.vnodeOfKeyGroup(32)).isEqualTo(4);
    }

    @Test
    void unevenSplitPutsTheLargerVnodesLast() {
        // floor(v*10/3) = 0, 3, 6, 10
        VnodeLayout layout = new VnodeLayout(10, 3);

        assertThat(layout.keyGroupsOf(0)).hasToString("[0-2]");
        assertThat(layout.keyGroupsOf(1)).hasToString("[3-5]");
        assertThat(layout.keyGroupsOf(2)).hasToString("[6-9]");
        int[] expectedVnodes = {0, 0, 0, 1, 1, 1, 2, 2, 2, 2};
        for (int kg = 0; kg < 10; kg++) {
            assertThat(layout.vnodeOfKeyGroup(kg))
                    .as("key group %d", kg)
                    .isEqualTo(expectedVnodes[kg]);
        }
    }

    @ParameterizedTest
    @CsvSource({"1, 1", "32768, 1", "32768, 32768", "32768, 32767", "32768, 3", "32767, 128"})
    void extremesPartitionTheKeyGroups(int numKeyGroups, int numVnodes) {
        VnodeLayout layout = new VnodeLayout(numKeyGroups, numVnodes);

        assertThat(layout.keyGroupsOf(0).startKeyGroup()).isZero();
        assertThat(layout.keyGroupsOf(numVnodes - 1).endKeyGroup()).isEqualTo(numKeyGroups - 1);
        for (int kg = 0; kg < numKeyGroups; kg++) {
            int vnode = layout.vnodeOfKeyGroup(kg);
            assertThat(layout.keyGroupsOf(vnode).contains(kg))
                    .as("vnode %d contains key group %d", vnode, kg)
                    .isTrue();
        }
    }

    /** Exhaustive proof of the O(1) inverse for every layout with up to 160 key groups. */
    @Test
    void vnodeOfKeyGroupInvertsTheSpansForAllSmallLayouts() {
        for (int numKeyGroups = 1; numKeyGroups <= 160; numKeyGroups++) {
            for (int numVnodes = 1; numVnodes <= numKeyGroups; numVnodes++) {
                VnodeLayout layout = new VnodeLayout(numKeyGroups, numVnodes);
                int expectedNextStart = 0;
                for (int vnode = 0; vnode < numVnodes; vnode++) {
                    KeyGroupSpan span = layout.keyGroupsOf(vnode);
                    assertThat(span.startKeyGroup()).isEqualTo(expectedNextStart);
                    for (int kg = span.startKeyGroup(); kg <= span.endKeyGroup(); kg++) {
                        if (layout.vnodeOfKeyGroup(kg) != vnode) {
                            throw new AssertionError(
                                    String.format(
                                            "%s: key group %d is in vnode %d but vnodeOfKeyGroup says %d",
                                            layout, kg, vnode, layout.vnodeOfKeyGroup(kg)));
                        }
                    }
                    expectedNextStart = span.endKeyGroup() + 1;
                }
                assertThat(expectedNextStart).isEqualTo(numKeyGroups);
            }
        }
    }

    @Test
    void vnodeOfKeyUsesFlinksKeyGroup() {
        VnodeLayout layout = new VnodeLayout(128, 16);

        // "user-1" lands in key group 121 (see KeyGroupsTest), which is in vnode 15.
        assertThat(layout.vnodeOfKey("user-1")).isEqualTo(15);
        assertThat(layout.vnodeOfKey("hello")).isEqualTo(layout.vnodeOfKeyGroup(35)).isEqualTo(4);
    }

    @Test
    void rejectsBadNumKeyGroups() {
        assertThatThrownBy(() -> new VnodeLayout(0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("numKeyGroups: 0 (expected: 1..32768)");
        assertThatThrownBy(() -> new VnodeLayout(32769, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("numKeyGroups: 32769 (expected: 1..32768)");
    }

    @Test
    void rejectsBadNumVnodes() {
        assertThatThrownBy(() -> new VnodeLayout(128, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("numVnodes: 0 (expected: 1..numKeyGroups=128)");
        assertThatThrownBy(() -> new VnodeLayout(128, 129))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("numVnodes: 129 (expected: 1..numKeyGroups=128)");
    }

    @Test
    void rejectsUnknownVnodesAndKeyGroups() {
        VnodeLayout layout = new VnodeLayout(128, 16);

        assertThatThrownBy(() -> layout.checkVnode(16))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("vnode: 16 (expected: 0..15)");
        assertThatThrownBy(() -> layout.keyGroupsOf(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("vnode: -1 (expected: 0..15)");
        assertThatThrownBy(() -> layout.vnodeOfKeyGroup(128))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keyGroup: 128 (expected: 0..127)");
        assertThatThrownBy(() -> layout.vnodeOfKeyGroup(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keyGroup: -1 (expected: 0..127)");
    }

    @Test
    void valueSemantics() {
        assertThat(new VnodeLayout(128, 16))
                .isEqualTo(new VnodeLayout(128, 16))
                .hasSameHashCodeAs(new VnodeLayout(128, 16))
                .isNotEqualTo(new VnodeLayout(128, 8))
                .isNotEqualTo(new VnodeLayout(256, 16))
                .hasToString("VnodeLayout{numKeyGroups=128, numVnodes=16}");
    }
}
