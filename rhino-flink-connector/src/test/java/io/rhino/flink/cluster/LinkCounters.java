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

package io.rhino.flink.cluster;

/**
 * Bytes that crossed a {@link NetworkBed} host's link, read from its veth's counters on the
 * bridge's side ({@code /sys/class/net/<link>/statistics}), Ethernet headers included.
 *
 * @param sent bytes the host sent (the bridge side's {@code rx_bytes})
 * @param received bytes the host received (the bridge side's {@code tx_bytes})
 */
public record LinkCounters(long sent, long received) {

    /** What crossed since {@code before}. */
    public LinkCounters minus(LinkCounters before) {
        return new LinkCounters(sent - before.sent, received - before.received);
    }

    public long total() {
        return sent + received;
    }
}
