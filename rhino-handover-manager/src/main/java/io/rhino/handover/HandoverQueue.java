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
import io.rhino.core.handover.InvalidHandoverException;
import io.rhino.core.routing.RoutingTable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Accepted handovers waiting to start, in request order. Each plan fits the table the plans ahead
 * of it produce, so they can run one after the other. Not thread-safe: guarded by the manager's
 * lock.
 */
final class HandoverQueue {

    /** An accepted handover that has not started. */
    record Entry(
            HandoverId id,
            HandoverPlan plan,
            CompletableFuture<HandoverResult> future,
            long requestedAtMillis) {}

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();

    int size() {
        return entries.size();
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    /** Appends an entry whose plan fits {@link #tableAfter} of the current table. */
    void add(Entry entry) {
        entries.add(entry);
    }

    Entry poll() {
        return entries.poll();
    }

    Optional<Entry> first() {
        return Optional.ofNullable(entries.peekFirst());
    }

    Optional<Entry> last() {
        return Optional.ofNullable(entries.peekLast());
    }

    Optional<Entry> find(HandoverId id) {
        return entries.stream().filter(e -> e.id().equals(id)).findFirst();
    }

    /** Returns the table once every queued plan has been applied to {@code table}. */
    RoutingTable tableAfter(RoutingTable table) {
        RoutingTable result = table;
        for (Entry entry : entries) {
            result = result.apply(entry.plan());
        }
        return result;
    }

    /**
     * Removes the entries that no longer fit after {@code table} turned out different than planned
     * (a handover ahead of them failed), and with them those that relied on them.
     *
     * @param onDropped told about each removed entry and why, in queue order
     */
    void dropThoseThatNoLongerFit(
            RoutingTable table, BiConsumer<Entry, InvalidHandoverException> onDropped) {
        RoutingTable basis = table;
        List<Entry> kept = new ArrayList<>();
        for (Entry entry : entries) {
            try {
                basis.validate(entry.plan());
                basis = basis.apply(entry.plan());
                kept.add(entry);
            } catch (InvalidHandoverException stale) {
                onDropped.accept(entry, stale);
            }
        }
        entries.clear();
        entries.addAll(kept);
    }

    /** Removes and returns every entry, in queue order. */
    List<Entry> removeAll() {
        List<Entry> all = new ArrayList<>(entries);
        entries.clear();
        return all;
    }
}
