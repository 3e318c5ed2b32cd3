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

package io.rhino.flink.spec;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.core.routing.RoutingTable;
import org.junit.jupiter.api.Test;

class RhinoOperatorSpecTest {

    private static final RhinoOperatorSpec SPEC = new RhinoOperatorSpec("counts", 128, 8, 2, 2);

    @Test
    void aRestoredTableOfTheSameShapeFits() {
        RoutingTable restored =
                new RhinoOperatorSpec("renamed", 128, 8, 2, 1).initialRoutingTable();
        assertThat(SPEC.refusalToRestore(restored)).isEmpty();
    }

    @Test
    void aRestoredTableOfAnotherShapeIsRefusedNamingTheValuesToBuildWith() {
        RoutingTable restored =
                new RhinoOperatorSpec("counts", 128, 16, 2, 2).initialRoutingTable();
        assertThat(SPEC.refusalToRestore(restored))
                .hasValue(
                        "Rhino keyed stream 'counts' restores a routing table of 128 key groups in"
                                + " 16 vnodes over 2 subtasks, but the job is built with 128 key"
                                + " groups in 8 vnodes over 2 subtasks. Key groups, vnodes and"
                                + " parallelism cannot change for existing state: build the job"
                                + " with the restored values (rhino.key-groups: 128, rhino.vnodes:"
                                + " 16, or RhinoKeyedStreamOptions' keyGroups and vnodes;"
                                + " parallelism 2).");
        RoutingTable otherParallelism =
                new RhinoOperatorSpec("counts", 128, 8, 4, 4).initialRoutingTable();
        assertThat(SPEC.refusalToRestore(otherParallelism)).isPresent();
    }
}
