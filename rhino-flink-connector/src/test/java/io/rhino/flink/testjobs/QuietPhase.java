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

package io.rhino.flink.testjobs;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.tuple.Tuple3;

/**
 * Gives every event of an index range (its timestamp, see {@link Events}) one key, so that while
 * the range passes only that key's vnode is written and every other vnode idles. A pure function of
 * the event: a replay after a failover and plain Flink's reference see the same keys.
 */
public record QuietPhase(long from, long to, long key)
        implements MapFunction<Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>> {

    /** No quiet phase: every event keeps its key. */
    public static final QuietPhase NONE = new QuietPhase(0, 0, 0);

    @Override
    public Tuple3<Long, Long, Long> map(Tuple3<Long, Long, Long> event) {
        return event.f1 >= from && event.f1 < to ? Tuple3.of(key, event.f1, event.f2) : event;
    }
}
