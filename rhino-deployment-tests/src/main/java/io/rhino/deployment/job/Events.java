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

package io.rhino.deployment.job;

import org.apache.flink.api.java.functions.KeySelector;

/** The generated events: event i is its index, with a skewed key. */
final class Events {

    private Events() {}

    /** A quarter of the events on ten hot keys, the rest spread over all keys. */
    static final class ByKey implements KeySelector<Long, Integer> {

        private static final long serialVersionUID = 1L;

        private final int keys;

        ByKey(int keys) {
            this.keys = keys;
        }

        @Override
        public Integer getKey(Long index) {
            return index % 4 == 0
                    ? (int) (index % 10)
                    : (int) Math.floorMod(index * 2_654_435_761L, (long) keys);
        }
    }
}
