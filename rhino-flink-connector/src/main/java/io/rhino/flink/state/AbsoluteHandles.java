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

import java.util.List;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.filesystem.RelativeFileStateHandle;

/**
 * Turns file handles that are relative to a checkpoint's directory into absolute ones. A vnode
 * manifest is read without knowing which checkpoint directory it sits in, so it stores only
 * absolute paths.
 */
final class AbsoluteHandles {

    private AbsoluteHandles() {}

    static KeyedStateHandle of(KeyedStateHandle handle) {
        if (handle instanceof IncrementalRemoteKeyedStateHandle incremental) {
            return new IncrementalRemoteKeyedStateHandle(
                    incremental.getBackendIdentifier(),
                    incremental.getKeyGroupRange(),
                    incremental.getCheckpointId(),
                    of(incremental.getSharedState()),
                    of(incremental.getPrivateState()),
                    of(incremental.getMetaDataStateHandle()),
                    incremental.getCheckpointedSize());
        }
        if (handle instanceof KeyGroupsStateHandle keyGroups
                && keyGroups.getDelegateStateHandle() instanceof RelativeFileStateHandle) {
            return new KeyGroupsStateHandle(
                    keyGroups.getGroupRangeOffsets(), of(keyGroups.getDelegateStateHandle()));
        }
        return handle;
    }

    private static List<HandleAndLocalPath> of(List<HandleAndLocalPath> files) {
        return files.stream()
                .map(file -> HandleAndLocalPath.of(of(file.getHandle()), file.getLocalPath()))
                .toList();
    }

    static StreamStateHandle of(StreamStateHandle handle) {
        if (handle instanceof RelativeFileStateHandle relative) {
            return new FileStateHandle(relative.getFilePath(), relative.getStateSize());
        }
        return handle;
    }
}
