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

package io.rhino.flink.replication;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The file that completes a vnode's replica of one checkpoint, and the layout of a vnode's replicas
 * in a store:
 *
 * <pre>
 * job/operator/vnode-V/i-INSTANCE/NNNNNN.sst   SST files of one RocksDB instance of the vnode
 * job/operator/vnode-V/chk-C/...               the checkpoint's small metadata files
 * job/operator/vnode-V/chk-C/_files            this listing, sent last
 * </pre>
 *
 * <p>A listing names every file of the checkpoint relative to the vnode directory, after a first
 * line {@code completed N}: the newest checkpoint the sender knew completed (-1: none), which tells
 * holders which older checkpoints they may drop. A vnode that moves starts a new instance
 * directory: RocksDB file names repeat across instances with other contents.
 *
 * <p>When a vnode has left its subtask and a checkpoint without it has completed, the subtask sends
 * a last listing without files and with a line {@code departed D} (the first checkpoint without the
 * vnode): it is no replica, only the notice that the copies before D may go.
 *
 * @param completedCheckpoint the newest completed checkpoint the sender knew of, -1 if none
 * @param departedAt the first checkpoint of the sender without the vnode, -1 if it still has it
 * @param files paths relative to the vnode directory
 */
public record ReplicaListing(long completedCheckpoint, long departedAt, List<String> files) {

    public static final String NAME = "_files";
    public static final String DEPARTURE_NAME = "_departed";

    /**
     * The largest listing read: a listing names one checkpoint's files of one vnode, some tens of
     * bytes each, so 4 MiB is over 50,000 files. A larger one arrived from a broken or hostile peer
     * and is refused without being read.
     */
    public static final long MAX_BYTES = 4L << 20;

    private static final String COMPLETED = "completed ";
    private static final String DEPARTED = "departed ";
    private static final Pattern LISTING_PATH =
            Pattern.compile("(.+/vnode-\\d+)/chk-(\\d+)/(" + NAME + "|" + DEPARTURE_NAME + ")");

    public ReplicaListing {
        files = List.copyOf(files);
        if (departedAt >= 0 && !files.isEmpty()) {
            throw new IllegalArgumentException("a departure notice lists no files");
        }
    }

    /** A complete replica of the vnode as of {@code completedCheckpoint}'s successors. */
    public static ReplicaListing of(long completedCheckpoint, List<String> files) {
        return new ReplicaListing(completedCheckpoint, -1, files);
    }

    /** The notice that the vnode left the sender at {@code departedAt}. */
    public static ReplicaListing departure(long completedCheckpoint, long departedAt) {
        return new ReplicaListing(completedCheckpoint, departedAt, List.of());
    }

    public boolean isDeparture() {
        return departedAt >= 0;
    }

    /** The listing's path: {@code <vnodeDirectory>/chk-<checkpoint>/_files}. */
    public static String path(String vnodeDirectory, long checkpoint) {
        return checkpointDirectory(vnodeDirectory, checkpoint) + "/" + NAME;
    }

    /**
     * Where a departure notice goes: beside, never over, the listing another owner of the vnode may
     * send to the same holder for the same checkpoint.
     */
    public static String departurePath(String vnodeDirectory, long checkpoint) {
        return checkpointDirectory(vnodeDirectory, checkpoint) + "/" + DEPARTURE_NAME;
    }

    public static String checkpointDirectory(String vnodeDirectory, long checkpoint) {
        return vnodeDirectory + "/" + CHECKPOINT_PREFIX + checkpoint;
    }

    /**
     * What a checkpoint's directory within a vnode's replica directory starts with: it holds the
     * checkpoint's listing and the metadata files its round sent.
     */
    static final String CHECKPOINT_PREFIX = "chk-";

    /** What an instance's directory within a vnode's replica directory starts with. */
    static final String INSTANCE_PREFIX = "i-";

    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    /**
     * A new directory for the SST files of one RocksDB instance of a vnode, within the vnode's
     * replica directory: random, so that instances never share one by accident.
     */
    static String newInstanceDirectory() {
        return INSTANCE_PREFIX + Long.toHexString(RANDOM.nextLong());
    }

    public static String vnodeDirectory(String operatorPrefix, int vnode) {
        return operatorPrefix + "/vnode-" + vnode;
    }

    /** The RocksDB file name of a file a listing names (its path within the vnode's replica). */
    static String fileName(String listed) {
        return listed.substring(listed.lastIndexOf('/') + 1);
    }

    /** A replica path that is a listing or a departure notice, split into its parts. */
    public record Location(String vnodeDirectory, long checkpoint, boolean departure) {}

    public static Optional<Location> locate(String relativePath) {
        Matcher matcher = LISTING_PATH.matcher(relativePath);
        return matcher.matches()
                ? Optional.of(
                        new Location(
                                matcher.group(1),
                                Long.parseLong(matcher.group(2)),
                                matcher.group(3).equals(DEPARTURE_NAME)))
                : Optional.empty();
    }

    public void write(Path file) throws IOException {
        List<String> lines = new ArrayList<>(files.size() + 1);
        lines.add(COMPLETED + completedCheckpoint);
        if (isDeparture()) {
            lines.add(DEPARTED + departedAt);
        }
        lines.addAll(files);
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /**
     * Reads a listing.
     *
     * @throws IOException if it cannot be read, is larger than {@link #MAX_BYTES}, or is not a
     *     listing
     */
    public static ReplicaListing read(Path file) throws IOException {
        long size = Files.size(file);
        if (size > MAX_BYTES) {
            throw new IOException(
                    file
                            + " is not a replica listing: "
                            + size
                            + " bytes, more than the limit of "
                            + MAX_BYTES);
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).startsWith(COMPLETED)) {
            throw new IOException(file + " is not a replica listing (no '" + COMPLETED + "N')");
        }
        long completed = number(file, lines.get(0), COMPLETED);
        int first = 1;
        long departed = -1;
        if (lines.size() > 1 && lines.get(1).startsWith(DEPARTED)) {
            departed = number(file, lines.get(1), DEPARTED);
            first = 2;
        }
        try {
            return new ReplicaListing(
                    completed,
                    departed,
                    lines.subList(first, lines.size()).stream().filter(l -> !l.isBlank()).toList());
        } catch (IllegalArgumentException e) {
            throw new IOException(file + " is not a replica listing: " + e.getMessage(), e);
        }
    }

    private static long number(Path file, String line, String key) throws IOException {
        try {
            return Long.parseLong(line.substring(key.length()).trim());
        } catch (NumberFormatException e) {
            throw new IOException(file + " is not a replica listing: '" + line + "'", e);
        }
    }
}
