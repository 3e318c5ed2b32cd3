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

package io.rhino.handover;

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverPlan;
import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Random tables, plans and router counts, with reports split, repeated and delivered in a random
 * order the protocol allows; see {@link HandoverManagerInterleavingTest}.
 */
class HandoverManagerInterleavingPropertiesTest {

    @Property(tries = 300)
    void anyAllowedOrderWithSplitAndRepeatedReportsCompletes(@ForAll long seed) {
        Random random = new Random(seed);
        int numKeyGroups = 64 + random.nextInt(193);
        int numVnodes = 8 + random.nextInt(57);
        int parallelism = 2 + random.nextInt(7);
        RoutingTable table =
                RoutingTable.initial(
                        new VnodeLayout(numKeyGroups, numVnodes),
                        parallelism,
                        1 + random.nextInt(parallelism));
        HandoverPlan plan = HandoverManagerInterleavingTest.randomPlan(table, random);
        int routers = 1 + random.nextInt(5);
        HandoverId id = new HandoverId("h-" + Long.toHexString(seed));
        List<ProtocolEvent> order = ProtocolEvent.randomOrder(id, plan, routers, random);

        Harness h = new Harness(table, routers, HandoverManagerOptions.defaults());
        HandoverManagerInterleavingTest.runAndCheck(
                h, id, plan, order, "seed " + seed + ", plan " + plan + ", order " + order);
    }
}
