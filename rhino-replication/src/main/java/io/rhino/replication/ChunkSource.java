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

import io.netty.buffer.ByteBufAllocator;

/**
 * Where a stream's chunks come from: a local file, read only as credit allows, or the chunks a
 * chain member receives and forwards. Used on the event loop only.
 */
interface ChunkSource {

    /** Whether a chunk can be sent now. */
    boolean hasNext();

    /**
     * The message carrying the next chunk of {@code stream} (a {@code ReplicationMessage.Chunk} or
     * a {@code ChunkEncoder.FileChunk}); the caller owns it.
     */
    Object next(long stream, ByteBufAllocator allocator) throws Exception;

    /** Releases what the source still holds. */
    void close();
}
