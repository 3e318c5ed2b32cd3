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

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class VnodeLayoutPropertiesTest {

    /** Any valid layout, with 1 and 2^15 as explicit edge cases for both dimensions. */
    @Provide
    Arbitrary<VnodeLayout> layouts() {
        return Arbitraries.integers()
                .between(1, KeyGroups.UPPER_BOUND_MAX_PARALLELISM)
                .edgeCases(c -> c.add(1, 2, 128, 32767, 32768))
                .flatMap(
                        numKeyGroups ->
                                Arbitraries.integers()
                                        .between(1, numKeyGroups)
                                        .edgeCases(c -> c.add(1, numKeyGroups))
                                        .map(
                                                numVnodes ->
                                                        new VnodeLayout(numKeyGroups, numVnodes)));
    }

    @Property
    void spansAreContiguousAndCoverAllKeyGroups(@ForAll("layouts") VnodeLayout layout) {
        int nextStart = 0;
        for (int vnode = 0; vnode < layout.numVnodes(); vnode++) {
            KeyGroupSpan span = layout.keyGroupsOf(vnode);
            assertThat(span.startKeyGroup()).as("start of vnode %d", vnode).isEqualTo(nextStart);
            nextStart = span.endKeyGroup() + 1;
        }
        assertThat(nextStart).isEqualTo(layout.numKeyGroups());
    }

    /**
     * Together with the contiguity property this shows every key group is in exactly one vnode and
     * that the O(1) inverse agrees with the spans.
     */
    @Property
    void vnodeOfKeyGroupAgreesWithSpans(@ForAll("layouts") VnodeLayout layout) {
        for (int vnode = 0; vnode < layout.numVnodes(); vnode++) {
            KeyGroupSpan span = layout.keyGroupsOf(vnode);
            for (int kg = span.startKeyGroup(); kg <= span.endKeyGroup(); kg++) {
                int found = layout.vnodeOfKeyGroup(kg);
                if (found != vnode) {
                    throw new AssertionError(
                            String.format(
                                    "%s: key group %d is in %s of vnode %d but vnodeOfKeyGroup returned %d",
                                    layout, kg, span, vnode, found));
                }
            }
        }
    }

    @Property
    void everyKeyGroupMapsIntoTheSpanOfItsVnode(@ForAll("layouts") VnodeLayout layout) {
        for (int kg = 0; kg < layout.numKeyGroups(); kg++) {
            int vnode = layout.vnodeOfKeyGroup(kg);
            if (vnode < 0
                    || vnode >= layout.numVnodes()
                    || !layout.keyGroupsOf(vnode).contains(kg)) {
                throw new AssertionError(layout + ": key group " + kg + " -> vnode " + vnode);
            }
        }
    }

    @Property
    void vnodeSizesDifferByAtMostOne(@ForAll("layouts") VnodeLayout layout) {
        int min = Integer.MAX_VALUE;
        int max = 0;
        long total = 0;
        for (int vnode = 0; vnode < layout.numVnodes(); vnode++) {
            int size = layout.keyGroupsOf(vnode).size();
            min = Math.min(min, size);
            max = Math.max(max, size);
            total += size;
        }
        assertThat(min).isPositive();
        assertThat(max - min).isLessThanOrEqualTo(1);
        assertThat(total).isEqualTo(layout.numKeyGroups());
    }

    @Property
    void keysLandInTheVnodeOfTheirKeyGroup(
            @ForAll("layouts") VnodeLayout layout, @ForAll String key) {
        int keyGroup = KeyGroups.assignToKeyGroup(key, layout.numKeyGroups());
        assertThat(layout.keyGroupsOf(layout.vnodeOfKey(key)).contains(keyGroup)).isTrue();
    }
}
