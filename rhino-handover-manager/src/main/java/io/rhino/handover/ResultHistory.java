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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The most recent results, oldest evicted first; guarded by the manager's lock. */
final class ResultHistory {

    private final LinkedHashMap<HandoverId, HandoverResult> resultById;

    ResultHistory(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: >= 1)");
        }
        this.resultById =
                new LinkedHashMap<>() {
                    private static final long serialVersionUID = 1L;

                    @Override
                    protected boolean removeEldestEntry(
                            Map.Entry<HandoverId, HandoverResult> eldest) {
                        return size() > capacity;
                    }
                };
    }

    void add(HandoverResult result) {
        resultById.put(result.id(), result);
    }

    Optional<HandoverResult> get(HandoverId id) {
        return Optional.ofNullable(resultById.get(id));
    }

    boolean contains(HandoverId id) {
        return resultById.containsKey(id);
    }
}
