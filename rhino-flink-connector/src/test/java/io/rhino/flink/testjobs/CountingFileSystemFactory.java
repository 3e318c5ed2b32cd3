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

package io.rhino.flink.testjobs;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystemFactory;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.local.LocalFileSystem;

/**
 * The {@code counting://} file system: local files that Flink must treat as remote storage (the
 * scheme is not {@code file}), counting every file opened for reading. As checkpoint storage it
 * shows what reads from the checkpoint storage.
 */
public final class CountingFileSystemFactory implements FileSystemFactory {

    public static final String SCHEME = "counting";
    private static final AtomicLong OPENED = new AtomicLong();

    /** How many files were opened for reading so far, by any job. */
    public static long opened() {
        return OPENED.get();
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public FileSystem create(URI fsUri) {
        return new CountingFileSystem();
    }

    private static final class CountingFileSystem extends LocalFileSystem {
        @Override
        public URI getUri() {
            return URI.create(SCHEME + ":///");
        }

        @Override
        public FSDataInputStream open(Path f, int bufferSize) throws IOException {
            OPENED.incrementAndGet();
            return super.open(f, bufferSize);
        }

        @Override
        public FSDataInputStream open(Path f) throws IOException {
            OPENED.incrementAndGet();
            return super.open(f);
        }
    }
}
