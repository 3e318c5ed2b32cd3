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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The export directories a backend wrote that no target has installed (and removed) yet. An export
 * holds hard links to SST files, which keep their disk space after RocksDB deleted them: those of a
 * handover that failed, or whose target died, are deleted when the backend goes, and a failed
 * export never leaves a partial directory behind.
 */
final class PendingExports {

    private static final Logger LOG = LoggerFactory.getLogger(PendingExports.class);

    /** Writes an export into a directory. */
    interface Writer {
        VnodeExport write(Path directory) throws Exception;
    }

    private final Set<Path> directories = new HashSet<>();

    /**
     * Writes an export, deleting what it wrote if it fails. Several vnodes may export at once: only
     * the bookkeeping is exclusive.
     */
    VnodeExport export(Path directory, Writer writer) throws Exception {
        boolean existed;
        synchronized (this) {
            directories.removeIf(installed -> !Files.exists(installed));
            existed = Files.exists(directory);
        }
        try {
            VnodeExport export = writer.write(directory);
            synchronized (this) {
                directories.add(directory);
            }
            return export;
        } catch (Exception e) {
            if (!existed) {
                FileUtils.deleteDirectoryQuietly(directory.toFile());
            }
            throw e;
        }
    }

    /** Deletes every export still there: no target will install it any more. */
    synchronized void deleteUninstalled() {
        List<Path> left = new ArrayList<>();
        for (Path directory : directories) {
            if (Files.exists(directory)) {
                left.add(directory);
                FileUtils.deleteDirectoryQuietly(directory.toFile());
            }
        }
        directories.clear();
        if (!left.isEmpty()) {
            LOG.info("Deleted vnode exports no target installed: {}", left);
        }
    }
}
