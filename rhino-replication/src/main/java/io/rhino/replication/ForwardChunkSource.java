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

package io.rhino.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rhino.replication.protocol.ReplicationMessage;
import java.util.ArrayDeque;

/**
 * The chunks a chain member received and passes on downstream. Each chunk that leaves for the next
 * member gives the upstream sender one credit back, and the {@link StreamReceiver} refuses a chunk
 * beyond the credit it granted, so a member holds at most the upstream credit window whatever the
 * file size and however slow the next member.
 */
final class ForwardChunkSource implements ChunkSource {

    private final ArrayDeque<ByteBuf> queue = new ArrayDeque<>();
    private final Runnable creditUpstream;

    ForwardChunkSource(Runnable creditUpstream) {
        this.creditUpstream = creditUpstream;
    }

    void offer(ByteBuf chunk) {
        if (queue.size() >= StreamReceiver.CREDIT_WINDOW) {
            chunk.release();
            throw new IllegalStateException(
                    "a forwarded stream holds "
                            + queue.size()
                            + " chunks, its whole credit window: the receiver let one through"
                            + " beyond its credit");
        }
        queue.addLast(chunk);
    }

    @Override
    public boolean hasNext() {
        return !queue.isEmpty();
    }

    @Override
    public ReplicationMessage.Chunk next(long stream, ByteBufAllocator allocator) {
        ByteBuf chunk = queue.removeFirst();
        creditUpstream.run();
        return new ReplicationMessage.Chunk(stream, chunk);
    }

    @Override
    public void close() {
        queue.forEach(ByteBuf::release);
        queue.clear();
    }
}
