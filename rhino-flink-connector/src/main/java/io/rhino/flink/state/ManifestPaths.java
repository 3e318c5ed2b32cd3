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

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.Nullable;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.filesystem.RelativeFileStateHandle;

/**
 * How file paths are stored in a {@link VnodeManifest}: a file written into the manifest's own
 * directory (Flink hands those out as {@link RelativeFileStateHandle}s: a savepoint's files, a
 * checkpoint's exclusive files) is stored relative to it, every other file absolute. So a savepoint
 * stays relocatable, as Flink promises for its own savepoints: moved to another directory, its
 * manifests resolve their files against where they are read from.
 *
 * <p>Flink's metadata format can only read relative handles with a context that is not public, so a
 * relative file is written as a plain {@link FileStateHandle} whose path has no scheme and no
 * leading slash, and turned back into an absolute one when the manifest is read.
 */
final class ManifestPaths {

    private ManifestPaths() {}

    /** The handle as a manifest stores it. */
    static KeyedStateHandle forManifest(KeyedStateHandle handle) {
        return map(handle, ManifestPaths::forManifest);
    }

    /**
     * The handle as read from a manifest in {@code manifestDirectory}, with relative files made
     * absolute.
     *
     * @throws IOException if the handle has relative files but the manifest's directory is unknown
     */
    static KeyedStateHandle resolve(KeyedStateHandle handle, @Nullable Path manifestDirectory)
            throws IOException {
        List<String> unresolved = new ArrayList<>();
        KeyedStateHandle resolved =
                map(handle, stream -> resolve(stream, manifestDirectory, unresolved));
        if (!unresolved.isEmpty()) {
            throw new IOException(
                    "Rhino vnode manifest refers to files "
                            + unresolved
                            + " relative to its own directory, but it was not read from a file."
                            + " Restore it from the checkpoint or savepoint directory it was"
                            + " written to.");
        }
        return resolved;
    }

    private static StreamStateHandle forManifest(StreamStateHandle handle) {
        if (handle instanceof RelativeFileStateHandle relative) {
            return new FileStateHandle(
                    new Path(relative.getRelativePath()), relative.getStateSize());
        }
        return handle;
    }

    private static StreamStateHandle resolve(
            StreamStateHandle handle, @Nullable Path manifestDirectory, List<String> unresolved) {
        if (handle instanceof FileStateHandle file
                && file.getClass() == FileStateHandle.class
                && isRelative(file.getFilePath())) {
            if (manifestDirectory == null) {
                unresolved.add(file.getFilePath().toString());
                return handle;
            }
            String relativePath = file.getFilePath().toString();
            return new RelativeFileStateHandle(
                    new Path(manifestDirectory, relativePath), relativePath, file.getStateSize());
        }
        return handle;
    }

    private static boolean isRelative(Path path) {
        return path.toUri().getScheme() == null && !path.isAbsolute();
    }

    private interface StreamMapping {
        StreamStateHandle apply(StreamStateHandle handle);
    }

    private static KeyedStateHandle map(KeyedStateHandle handle, StreamMapping mapping) {
        if (handle instanceof IncrementalRemoteKeyedStateHandle incremental) {
            return new IncrementalRemoteKeyedStateHandle(
                    incremental.getBackendIdentifier(),
                    incremental.getKeyGroupRange(),
                    incremental.getCheckpointId(),
                    map(incremental.getSharedState(), mapping),
                    map(incremental.getPrivateState(), mapping),
                    mapping.apply(incremental.getMetaDataStateHandle()),
                    incremental.getCheckpointedSize());
        }
        if (handle instanceof KeyGroupsStateHandle keyGroups) {
            return new KeyGroupsStateHandle(
                    keyGroups.getGroupRangeOffsets(),
                    mapping.apply(keyGroups.getDelegateStateHandle()));
        }
        return handle;
    }

    private static List<HandleAndLocalPath> map(
            List<HandleAndLocalPath> files, StreamMapping mapping) {
        return files.stream()
                .map(
                        file ->
                                HandleAndLocalPath.of(
                                        mapping.apply(file.getHandle()), file.getLocalPath()))
                .toList();
    }
}
