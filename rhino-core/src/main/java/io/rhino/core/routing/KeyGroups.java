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

package io.rhino.core.routing;

import java.util.Objects;

/**
 * Maps keys to Flink key groups.
 *
 * <p>The results are bit-for-bit identical to Flink's {@code
 * KeyGroupRangeAssignment.assignToKeyGroup} and {@code MathUtils.murmurHash}, so that a vnode
 * computed here always contains the key group in which Flink's keyed state backend stores the key.
 * This class is a copy rather than a call because rhino-core must not depend on Flink.
 */
public final class KeyGroups {

    /** Maximum parallelism (number of key groups) assumed when the job does not set one. */
    public static final int DEFAULT_MAX_PARALLELISM = 1 << 15;

    /** Largest maximum parallelism Flink accepts; key groups are stored in 15 bits. */
    public static final int UPPER_BOUND_MAX_PARALLELISM = 1 << 15;

    private KeyGroups() {}

    /**
     * Returns the key group of {@code key}, exactly as Flink assigns it.
     *
     * @param key the record key; must not be null and must have a stable {@code hashCode()}
     * @param maxParallelism the operator's maximum parallelism, i.e. its number of key groups
     * @return a key group in {@code [0, maxParallelism)}
     */
    public static int assignToKeyGroup(Object key, int maxParallelism) {
        Objects.requireNonNull(key, "key: null (expected: a non-null key)");
        return computeKeyGroupForKeyHash(key.hashCode(), maxParallelism);
    }

    /**
     * Returns the key group for a key whose {@code hashCode()} is {@code keyHash}.
     *
     * @param keyHash the key's {@code hashCode()}
     * @param maxParallelism the operator's maximum parallelism, i.e. its number of key groups
     * @return a key group in {@code [0, maxParallelism)}
     */
    public static int computeKeyGroupForKeyHash(int keyHash, int maxParallelism) {
        checkMaxParallelism(maxParallelism);
        return murmurHash(keyHash) % maxParallelism;
    }

    /**
     * Flink's {@code MathUtils.murmurHash(int)}: a non-negative, well mixed hash of {@code code}.
     *
     * @param code the value to hash
     * @return a value in {@code [0, Integer.MAX_VALUE]}
     */
    public static int murmurHash(int code) {
        code *= 0xcc9e2d51;
        code = Integer.rotateLeft(code, 15);
        code *= 0x1b873593;

        code = Integer.rotateLeft(code, 13);
        code = code * 5 + 0xe6546b64;

        // Flink finalises with the input length in bytes: one int.
        code ^= 4;
        code = bitMix(code);

        if (code >= 0) {
            return code;
        } else if (code != Integer.MIN_VALUE) {
            return -code;
        } else {
            // -MIN_VALUE overflows to itself; Flink maps it to 0.
            return 0;
        }
    }

    /**
     * Checks that {@code maxParallelism} is a number of key groups Flink accepts.
     *
     * @param maxParallelism the value to check
     * @throws IllegalArgumentException if it is outside {@code 1..}{@link
     *     #UPPER_BOUND_MAX_PARALLELISM}
     */
    public static void checkMaxParallelism(int maxParallelism) {
        if (maxParallelism < 1 || maxParallelism > UPPER_BOUND_MAX_PARALLELISM) {
            throw new IllegalArgumentException(
                    "maxParallelism: "
                            + maxParallelism
                            + " (expected: 1.."
                            + UPPER_BOUND_MAX_PARALLELISM
                            + ")");
        }
    }

    /** Murmur3 32-bit finaliser, as in Flink's {@code MathUtils.bitMix}. */
    private static int bitMix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
