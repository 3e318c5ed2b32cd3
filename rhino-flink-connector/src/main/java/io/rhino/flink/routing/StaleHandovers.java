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

import io.rhino.core.handover.HandoverId;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Handovers a gate found stale (their markers were replayed from a checkpoint), so their later
 * markers are ignored without another look. Bounded: a handover's markers come from a fixed number
 * of routers, so old entries are long unused when they are dropped.
 */
final class StaleHandovers {

    private static final int REMEMBERED = 256;

    private final Set<HandoverId> ids = new LinkedHashSet<>();

    boolean contains(HandoverId id) {
        return ids.contains(id);
    }

    void add(HandoverId id) {
        if (ids.add(id) && ids.size() > REMEMBERED) {
            ids.remove(ids.iterator().next());
        }
    }
}
