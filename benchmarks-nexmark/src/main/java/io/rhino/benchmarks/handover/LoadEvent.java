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

package io.rhino.benchmarks.handover;

/**
 * A record of the handover benchmark's job: a fill record carries a payload that becomes the key's
 * state; a probe record (no payload) only measures latency.
 */
public class LoadEvent {

    /** The key. */
    public long key;

    /** Wall-clock creation time, in milliseconds. */
    public long createdMillis;

    /** The state to store under the key; null for a probe. */
    public byte[] payload;

    /** For Flink's POJO serializer. */
    public LoadEvent() {}

    LoadEvent(long key, long createdMillis, byte[] payload) {
        this.key = key;
        this.createdMillis = createdMillis;
        this.payload = payload;
    }

    boolean isProbe() {
        return payload == null;
    }
}
