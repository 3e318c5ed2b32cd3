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

import java.util.List;

/** Opens the stream that passes a received file on to the rest of its chain. */
interface Forwarder {

    /**
     * Opens a stream to {@code downstream.get(0)}, telling it to pass the file on to the rest.
     * Event loop only.
     */
    Forward forward(
            List<String> downstream, String path, long size, int crc, Runnable creditUpstream);
}
