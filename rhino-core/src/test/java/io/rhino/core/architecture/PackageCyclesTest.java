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

package io.rhino.core.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class PackageCyclesTest {

    @Test
    void layersHaveNoCycle() {
        assertThat(
                        PackageCycles.cycles(
                                Map.of("a", Set.of("b", "c"), "b", Set.of("c"), "c", Set.of())))
                .isEmpty();
    }

    @Test
    void eachCycleIsReportedAsAPathBackToItsStart() {
        Map<String, Set<String>> uses = new TreeMap<>();
        uses.put("api", Set.of("routing"));
        uses.put("routing", Set.of("state"));
        uses.put("state", Set.of("routing", "config"));
        uses.put("config", Set.of());
        uses.put("x", Set.of("y"));
        uses.put("y", Set.of("z"));
        uses.put("z", Set.of("x"));
        assertThat(PackageCycles.cycles(uses))
                .containsExactlyInAnyOrder(
                        List.of("routing", "state", "routing"), List.of("x", "y", "z", "x"));
    }
}
