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

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * A name (job, operator, TaskManager, handover, file) as one path segment of a local directory or a
 * replica store. A name that is already a safe, short segment is kept as it is; any other is made
 * safe and cut, then told apart by a hash of the whole name, so two names never share a directory
 * ("counts a" and "counts_a" used to share their replicas and their uploads).
 */
public final class PathSegment {

    /** Longest segment: names under it (e.g. {@code <handover>-vnode-<n>-peer}) stay within 255. */
    static final int MAX_LENGTH = 96;

    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]*");
    private static final int HASH_HEX_CHARS = 12;

    private PathSegment() {}

    /** {@code name} as a segment: itself if safe and short, else a safe prefix plus its hash. */
    public static String of(String name) {
        if (name.length() <= MAX_LENGTH && SAFE.matcher(name).matches()) {
            return name;
        }
        String safe = "_" + name.replaceAll("[^A-Za-z0-9._-]", "_");
        int keep = Math.min(safe.length(), MAX_LENGTH - HASH_HEX_CHARS - 1);
        return safe.substring(0, keep) + "-" + hash(name);
    }

    private static String hash(String name) {
        try {
            byte[] digest =
                    MessageDigest.getInstance("SHA-256")
                            .digest(name.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, HASH_HEX_CHARS);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }
}
