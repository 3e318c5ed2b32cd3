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

import org.apache.flink.streaming.api.watermark.Watermark;

/**
 * The newest watermark a gate received while event time had to stand still for a handover.
 * Watermarks only grow, so keeping the newest one loses nothing.
 */
final class WatermarkHold {

    private Watermark held;

    void hold(Watermark watermark) {
        held = watermark;
    }

    /** The held watermark, once; null if none was held. */
    Watermark release() {
        Watermark released = held;
        held = null;
        return released;
    }
}
