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

package io.rhino.benchmarks.replication;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Files of random (incompressible) bytes written sequentially with a {@link FileChannel}, each
 * forced to disk before the next is written, as a replica store writes what it receives.
 */
public final class FsyncedFiles {

    private static final int BLOCK_BYTES = 4 << 20;

    private final ByteBuffer block = ByteBuffer.allocateDirect(BLOCK_BYTES);
    private final byte[] fill = new byte[BLOCK_BYTES];
    private final SplittableRandom random;

    public FsyncedFiles(long seed) {
        this.random = new SplittableRandom(seed);
        refill();
    }

    /**
     * The sizes of the files that hold {@code totalBytes}: {@code fileBytes} each, the last less.
     */
    public static List<Long> sizes(long totalBytes, long fileBytes) {
        List<Long> sizes = new ArrayList<>();
        for (long left = totalBytes; left > 0; left -= fileBytes) {
            sizes.add(Math.min(left, fileBytes));
        }
        return sizes;
    }

    /**
     * Writes the source files of a run, each of fresh random bytes, and returns them by the replica
     * path they are replicated to. Forcing them to disk here keeps their write-back out of the
     * timed runs that follow.
     */
    public Map<String, Path> writeSources(Path dir, List<Long> sizes) throws IOException {
        Files.createDirectories(dir);
        Map<String, Path> files = new LinkedHashMap<>();
        for (int i = 0; i < sizes.size(); i++) {
            String name = String.format("%06d.sst", i + 1);
            Path file = dir.resolve(name);
            write(file, sizes.get(i), true);
            files.put("bench/" + name, file);
        }
        return files;
    }

    /**
     * Writes the baseline's files. They repeat one random block, so that no time goes into making
     * random bytes while timed; filesystems compress blocks of at most a few hundred KB on their
     * own, so a repeat every {@value #BLOCK_BYTES} bytes does not make the data compressible.
     */
    public void writeBaseline(Path dir, List<Long> sizes) throws IOException {
        Files.createDirectories(dir);
        for (int i = 0; i < sizes.size(); i++) {
            write(dir.resolve("baseline-" + i), sizes.get(i), false);
        }
    }

    private void write(Path file, long size, boolean freshBytes) throws IOException {
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long left = size;
            while (left > 0) {
                if (freshBytes) {
                    refill();
                }
                ByteBuffer data = block.duplicate().clear();
                data.limit((int) Math.min(BLOCK_BYTES, left));
                while (data.hasRemaining()) {
                    left -= channel.write(data);
                }
            }
            channel.force(true);
        }
    }

    private void refill() {
        random.nextBytes(fill);
        block.clear();
        block.put(fill).flip();
    }
}
