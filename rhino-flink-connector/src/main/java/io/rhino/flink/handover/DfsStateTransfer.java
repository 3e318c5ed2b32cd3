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

package io.rhino.flink.handover;

import io.rhino.core.handover.HandoverId;
import io.rhino.flink.state.UploadedFiles;
import io.rhino.flink.state.VnodeExport;
import io.rhino.flink.state.VnodeInstallTarget;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RhinoDFS ({@code rhino.replication.mode: dfs}): ships a vnode through a distributed filesystem,
 * so that origin and target may be on any machines without replication peers. The origin exports
 * the vnode locally (as {@link LocalDirectoryStateTransfer}), uploads the export under {@code
 * <rhino.replication.dfs.path>/<job>/<operator>/<handover>/vnode-<v>/}, and deletes its local copy;
 * the target downloads it, installs it and deletes the uploaded copy. The whole vnode travels twice
 * (up and down): the paper's baseline against peer replication.
 */
public final class DfsStateTransfer implements StateTransfer {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(DfsStateTransfer.class);
    private static final String METADATA = "metadata";
    private static final String DB = "db";

    private final String basePath;
    private final String operatorPrefix;

    /**
     * @param basePath a Flink filesystem URI every TaskManager can reach
     * @param operatorPrefix the job and operator part of the paths, already safe path segments
     */
    public DfsStateTransfer(String basePath, String operatorPrefix) {
        this.basePath = basePath;
        this.operatorPrefix = operatorPrefix;
    }

    /** Where the export lies on the distributed filesystem, and what the target needs. */
    record DfsShipment(
            String directory,
            List<String> dbFiles,
            KeyGroupRange keyGroupRange,
            UploadedFiles uploaded)
            implements Serializable {}

    @Override
    public Shipment ship(
            VnodeKeyedStateBackend<?> origin, int vnode, int targetSubtask, HandoverId handover)
            throws Exception {
        VnodeExport export = LocalDirectoryStateTransfer.exportLocally(origin, vnode, handover);
        org.apache.flink.core.fs.Path remote =
                new org.apache.flink.core.fs.Path(
                        basePath, operatorPrefix + "/" + handover.value() + "/vnode-" + vnode);
        long started = System.nanoTime();
        long sent = 0;
        List<String> dbFiles = new ArrayList<>();
        try {
            try (Stream<Path> files = Files.list(export.dbDirectory())) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    String name = file.getFileName().toString();
                    sent +=
                            upload(
                                    file,
                                    new org.apache.flink.core.fs.Path(remote, DB + "/" + name));
                    dbFiles.add(name);
                }
            }
            sent +=
                    upload(
                            export.metadataFile(),
                            new org.apache.flink.core.fs.Path(remote, METADATA));
        } catch (IOException e) {
            deleteQuietly(remote);
            throw new IOException(
                    "Could not upload vnode "
                            + vnode
                            + " to "
                            + remote
                            + " (rhino.replication.dfs.path): "
                            + e.getMessage(),
                    e);
        } finally {
            export.delete();
        }
        LOG.info(
                "Handover {}: uploaded vnode {} ({} files, {} bytes) to {} in {} ms",
                handover,
                vnode,
                dbFiles.size() + 1,
                sent,
                remote,
                (System.nanoTime() - started) / 1_000_000);
        return new Shipment(
                new DfsShipment(
                        remote.toString(),
                        dbFiles,
                        export.handle().getKeyGroupRange(),
                        export.uploaded()),
                export.copiedBytes(),
                sent);
    }

    @Override
    public Leftovers install(VnodeInstallTarget target, int vnode, Serializable payload)
            throws Exception {
        if (!(payload instanceof DfsShipment shipment)) {
            throw new IllegalArgumentException(
                    "Cannot install vnode "
                            + vnode
                            + " from "
                            + payload
                            + " (expected an export on the distributed filesystem)");
        }
        org.apache.flink.core.fs.Path remote =
                new org.apache.flink.core.fs.Path(shipment.directory());
        Path local =
                Files.createDirectories(
                        target.transferDirectory()
                                .toPath()
                                .resolve("dfs-vnode-" + vnode + "-" + System.nanoTime()));
        try {
            Path db = Files.createDirectories(local.resolve(DB));
            for (String name : shipment.dbFiles()) {
                download(
                        new org.apache.flink.core.fs.Path(remote, DB + "/" + name),
                        db.resolve(name));
            }
            Path metadata = local.resolve(METADATA);
            download(new org.apache.flink.core.fs.Path(remote, METADATA), metadata);
            target.installMovedVnode(
                    vnode,
                    VnodeExport.localHandle(
                            db, metadata, shipment.keyGroupRange(), shipment.uploaded()));
        } catch (Exception e) {
            FileUtils.deleteDirectoryQuietly(local.toFile());
            throw e;
        }
        // the installed vnode holds its own hard links
        return () -> {
            FileUtils.deleteDirectoryQuietly(local.toFile());
            deleteQuietly(remote);
            // the handover's directory goes with its last vnode (it is not empty before)
            try {
                remote.getFileSystem().delete(remote.getParent(), false);
            } catch (IOException notEmptyYet) {
                // another vnode of the handover is still to be installed
            }
        };
    }

    /**
     * Deletes what handovers of this operator left on the distributed filesystem: the uploads of
     * handovers that failed after their origin shipped (the job restarted, so none of them will be
     * installed). Call only while no handover of the operator can run: when the job (re)starts,
     * before the gates report running.
     */
    public void removeLeftovers() {
        org.apache.flink.core.fs.Path operatorDirectory =
                new org.apache.flink.core.fs.Path(basePath, operatorPrefix);
        try {
            FileSystem fs = operatorDirectory.getFileSystem();
            if (fs.exists(operatorDirectory)) {
                LOG.info(
                        "Deleting the uploads of handovers that did not complete: {}",
                        operatorDirectory);
                fs.delete(operatorDirectory, true);
            }
        } catch (IOException e) {
            LOG.warn(
                    "Could not delete the uploads of handovers that did not complete under {}: {}",
                    operatorDirectory,
                    e.toString());
        }
    }

    private static long upload(Path file, org.apache.flink.core.fs.Path target) throws IOException {
        FileSystem fs = target.getFileSystem();
        try (InputStream in = Files.newInputStream(file);
                OutputStream out = fs.create(target, FileSystem.WriteMode.NO_OVERWRITE)) {
            return in.transferTo(out);
        }
    }

    private static void download(org.apache.flink.core.fs.Path source, Path target)
            throws IOException {
        try (InputStream in = source.getFileSystem().open(source)) {
            Files.copy(in, target);
        }
    }

    private static void deleteQuietly(org.apache.flink.core.fs.Path directory) {
        try {
            directory.getFileSystem().delete(directory, true);
        } catch (IOException e) {
            LOG.warn("Could not delete {}: {}", directory, e.toString());
        }
    }
}
