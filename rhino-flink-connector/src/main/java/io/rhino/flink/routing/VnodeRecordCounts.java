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

import io.rhino.flink.events.RouterLoadEvent;

/** A router's per-vnode record counts since its last load report. Task-thread only. */
final class VnodeRecordCounts {

    private long[] counts;
    private long periodStartMillis;

    VnodeRecordCounts(int numVnodes, long nowMillis) {
        this.counts = new long[numVnodes];
        this.periodStartMillis = nowMillis;
    }

    void count(int vnode) {
        counts[vnode]++;
    }

    /** The counts since the last report, as a report ending now; starts a new period. */
    RouterLoadEvent report(long nowMillis) {
        RouterLoadEvent report =
                new RouterLoadEvent(counts, Math.max(0, nowMillis - periodStartMillis));
        counts = new long[counts.length];
        periodStartMillis = nowMillis;
        return report;
    }
}
