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

import java.time.Duration;
import java.util.Locale;

/**
 * How a host's link of the {@link NetworkBed} is shaped, the same in both directions: its rate and
 * the delay added to every packet leaving either end (so a round trip between two hosts crosses
 * four shaped ends).
 *
 * @param bitsPerSecond the link's rate
 * @param delay added at each end; zero adds none
 */
public record LinkShape(long bitsPerSecond, Duration delay) {

    /** 1 Gbit/s and 0.5 ms per end, the bed's default. */
    public static final LinkShape DEFAULT =
            new LinkShape(1_000_000_000L, Duration.ofNanos(500_000));

    public LinkShape {
        if (bitsPerSecond < 8_000) {
            throw new IllegalArgumentException("a link of at least 8 kbit/s: " + bitsPerSecond);
        }
        if (delay.isNegative()) {
            throw new IllegalArgumentException("a negative delay: " + delay);
        }
    }

    /**
     * The default shape, changed by {@code -Drhino.netbed.rate} (e.g. {@code 100mbit}, {@code
     * 10gbit}) and {@code -Drhino.netbed.delay} (e.g. {@code 2ms}, {@code 0us}).
     */
    public static LinkShape fromSystemProperties() {
        String rate = System.getProperty("rhino.netbed.rate", "");
        String delay = System.getProperty("rhino.netbed.delay", "");
        return new LinkShape(
                rate.isBlank() ? DEFAULT.bitsPerSecond : parseRate(rate),
                delay.isBlank() ? DEFAULT.delay : parseDelay(delay));
    }

    /** The same delay at another rate. */
    public LinkShape withRate(long bitsPerSecond) {
        return new LinkShape(bitsPerSecond, delay);
    }

    /** {@code 1gbit}, {@code 250mbit}, {@code 64kbit} or a number of bits per second. */
    static long parseRate(String text) {
        String value = text.strip().toLowerCase(Locale.ROOT);
        long unit = 1;
        for (String[] suffix :
                new String[][] {
                    {"gbit", "1000000000"}, {"mbit", "1000000"}, {"kbit", "1000"}, {"bit", "1"}
                }) {
            if (value.endsWith(suffix[0])) {
                unit = Long.parseLong(suffix[1]);
                value = value.substring(0, value.length() - suffix[0].length());
                break;
            }
        }
        return Math.round(Double.parseDouble(value) * unit);
    }

    /** {@code 0.5ms}, {@code 500us}, {@code 2s} or a number of milliseconds. */
    static Duration parseDelay(String text) {
        String value = text.strip().toLowerCase(Locale.ROOT);
        double nanosPerUnit = 1_000_000;
        if (value.endsWith("us")) {
            nanosPerUnit = 1_000;
            value = value.substring(0, value.length() - 2);
        } else if (value.endsWith("ms")) {
            value = value.substring(0, value.length() - 2);
        } else if (value.endsWith("s")) {
            nanosPerUnit = 1_000_000_000;
            value = value.substring(0, value.length() - 1);
        }
        return Duration.ofNanos(Math.round(Double.parseDouble(value) * nanosPerUnit));
    }

    /** The rate as {@code tc} reads it. */
    String tcRate() {
        return bitsPerSecond + "bit";
    }

    /** The delay as {@code tc} reads it. */
    String tcDelay() {
        return Math.max(1, delay.toNanos() / 1_000) + "us";
    }

    /**
     * A token bucket of at least 64 KiB (a GSO packet of the veth passes whole) or 2 ms at the
     * rate, whichever is larger.
     */
    String tcBurst() {
        return Math.max(64 * 1024, bitsPerSecond / 8 / 500) + "b";
    }

    @Override
    public String toString() {
        return bitsPerSecond / 1_000_000.0 + " Mbit/s, " + delay.toNanos() / 1_000 + " us per end";
    }
}
