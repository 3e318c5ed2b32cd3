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

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/** Sends a stored file to another member's store, as a fetch asked for. */
interface Pusher {

    /**
     * Replicates {@code file} to the member at {@code to} as {@code targetPath}.
     *
     * @return completes once that member stored and verified it
     */
    CompletableFuture<Void> push(Path file, String targetPath, PeerAddress to);
}
