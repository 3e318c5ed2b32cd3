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

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.apache.flink.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subtask execution's scratch directory for vnodes in transfer (exports, shipments being
 * installed, replicas being assembled for a restore, checkpoint captures for replication): {@code
 * <tmp>/rhino-transfer/<job>/<operator>/<execution>}. Several Rhino operators of a job, and several
 * jobs of a session cluster, run on one TaskManager and name their scratch after the handover and
 * the vnode, which are the same for every operator of a drain: each execution's own directory keeps
 * those names apart, and deleting it when the backend goes leaves nothing of it behind.
 */
public final class TransferDirectory {

    private static final Logger LOG = LoggerFactory.getLogger(TransferDirectory.class);

    /** The TaskManager's directory of all transfer directories, in its temporary directory. */
    static final String ROOT = "rhino-transfer";

    /** Attempts at creating the directory while another execution removes an emptied parent. */
    private static final int CREATE_ATTEMPTS = 10;

    private final Path root;
    private final Path directory;

    private TransferDirectory(Path root, Path directory) {
        this.root = root;
        this.directory = directory;
    }

    /**
     * The directory of one execution of a subtask of {@code operator} in {@code job}, under the
     * TaskManager's temporary directory {@code taskManagerTmp}; not created yet.
     */
    static TransferDirectory of(
            File taskManagerTmp, String job, String operator, String execution) {
        Path root = taskManagerTmp.toPath().resolve(ROOT).toAbsolutePath();
        return new TransferDirectory(
                root,
                root.resolve(PathSegment.of(job))
                        .resolve(PathSegment.of(operator))
                        .resolve(PathSegment.of(execution)));
    }

    /** The directory itself. */
    public Path path() {
        return directory;
    }

    /**
     * Creates the directory with its parents. Another execution that deletes its own directory
     * removes the parents it emptied: creating again then finds them gone, which is retried.
     */
    TransferDirectory create() throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                Files.createDirectories(directory);
                return this;
            } catch (NoSuchFileException parentJustRemoved) {
                if (attempt == CREATE_ATTEMPTS) {
                    throw parentJustRemoved;
                }
            }
        }
    }

    /**
     * Deletes the directory with everything in it, and its job's and operator's directories if
     * nothing else is in them any more (the last execution of a job on this TaskManager removes
     * them). Failures are only logged: the job goes on or ends either way.
     */
    void delete() {
        try {
            FileUtils.deleteDirectory(directory.toFile());
        } catch (IOException e) {
            LOG.warn("Could not delete the transfer directory {}: {}", directory, e.toString());
            return;
        }
        for (Path parent = directory.getParent();
                parent != null && !parent.equals(root) && parent.startsWith(root);
                parent = parent.getParent()) {
            try {
                Files.deleteIfExists(parent);
            } catch (DirectoryNotEmptyException stillUsed) {
                // another execution of the job (or operator) on this TaskManager
                return;
            } catch (IOException e) {
                LOG.warn("Could not delete the transfer directory {}: {}", parent, e.toString());
                return;
            }
        }
    }

    @Override
    public String toString() {
        return directory.toString();
    }
}
