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

package io.rhino.flink.state;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.apache.flink.runtime.state.KeyValueStateIterator;
import org.apache.flink.util.IOUtils;

/**
 * The entries of several vnodes' iterators, one vnode after the other: each vnode holds a
 * contiguous range of key groups and they come in ascending order, so the sequence stays ordered by
 * (key group, state) as Flink's savepoint writer needs. Each vnode's state ids are mapped to the
 * ids of the merged state list.
 */
final class ConcatenatedStateIterator implements KeyValueStateIterator {

    /** One vnode's iterator and where its state ids go in the merged list. */
    record Part(KeyValueStateIterator iterator, int[] mergedStateIds) {}

    private final Deque<Part> remaining;
    private Part current;
    private boolean firstOfPart;

    ConcatenatedStateIterator(List<Part> parts) {
        this.remaining = new ArrayDeque<>(parts);
        advanceToValidPart();
    }

    private void advanceToValidPart() {
        while (current == null || !current.iterator().isValid()) {
            if (current != null) {
                current.iterator().close();
            }
            current = remaining.pollFirst();
            if (current == null) {
                return;
            }
            firstOfPart = true;
        }
    }

    @Override
    public void next() throws IOException {
        current.iterator().next();
        firstOfPart = false;
        advanceToValidPart();
    }

    @Override
    public int keyGroup() {
        return current.iterator().keyGroup();
    }

    @Override
    public byte[] key() {
        return current.iterator().key();
    }

    @Override
    public byte[] value() {
        return current.iterator().value();
    }

    @Override
    public int kvStateId() {
        return current.mergedStateIds()[current.iterator().kvStateId()];
    }

    @Override
    public boolean isNewKeyValueState() {
        return firstOfPart || current.iterator().isNewKeyValueState();
    }

    @Override
    public boolean isNewKeyGroup() {
        return firstOfPart || current.iterator().isNewKeyGroup();
    }

    @Override
    public boolean isValid() {
        return current != null && current.iterator().isValid();
    }

    @Override
    public void close() {
        if (current != null) {
            IOUtils.closeQuietly(current.iterator()::close);
            current = null;
        }
        for (Part part : remaining) {
            IOUtils.closeQuietly(part.iterator()::close);
        }
        remaining.clear();
    }
}
