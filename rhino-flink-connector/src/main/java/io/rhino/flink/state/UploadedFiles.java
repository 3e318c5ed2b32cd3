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

import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;

/**
 * The SST files of a vnode that a completed checkpoint already holds, by their local file names,
 * with the handles that checkpoint uploaded them as. A moved vnode carries them to its new owner,
 * whose RocksDB backend then refers to them in its next checkpoint (placeholders Flink's {@code
 * SharedStateRegistry} resolves, as it does for a backend's own earlier uploads) instead of
 * uploading the whole vnode again.
 *
 * @param checkpointId the completed checkpoint that holds the files (0 with no files)
 * @param files the files, as that checkpoint's shared state lists them (real handles, never
 *     placeholders)
 */
public record UploadedFiles(long checkpointId, List<HandleAndLocalPath> files)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /** No file is known to be uploaded: the new owner's next checkpoint uploads them all. */
    public static final UploadedFiles NONE = new UploadedFiles(0L, List.of());

    public UploadedFiles {
        if (checkpointId < 0) {
            throw new IllegalArgumentException("checkpointId: " + checkpointId);
        }
        files = List.copyOf(files);
    }

    /** What an exported vnode's handle carries (see {@link VnodeExport#localHandle}). */
    public static UploadedFiles of(IncrementalLocalKeyedStateHandle export) {
        return export.getSharedStateHandles().isEmpty()
                ? NONE
                : new UploadedFiles(export.getCheckpointId(), export.getSharedStateHandles());
    }

    public boolean isEmpty() {
        return files.isEmpty();
    }

    /** Only the files present in {@code db}: those an export of the live instance holds. */
    UploadedFiles presentIn(Path db) {
        List<HandleAndLocalPath> present =
                files.stream()
                        .filter(file -> Files.exists(db.resolve(file.getLocalPath())))
                        .toList();
        return present.isEmpty() ? NONE : new UploadedFiles(checkpointId, present);
    }

    /** Bytes the new owner does not upload again. */
    public long bytes() {
        return files.stream().mapToLong(HandleAndLocalPath::getStateSize).sum();
    }
}
