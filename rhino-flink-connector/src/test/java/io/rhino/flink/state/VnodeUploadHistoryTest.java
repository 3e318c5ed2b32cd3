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

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which uploaded files a moved vnode may hand to its next owner: those of its base checkpoint that
 * every checkpoint able to complete before the new owner's first one still refers to by the same
 * handle.
 */
class VnodeUploadHistoryTest {

    private static final int VNODE = 3;

    private VnodeUploadHistory history;

    @BeforeEach
    void setUp() {
        history = new VnodeUploadHistory();
        history.added(VNODE, UploadedFiles.NONE);
    }

    @Test
    void nothingBeforeACheckpointCompleted() {
        assertThat(history.reusable(VNODE)).isEqualTo(UploadedFiles.NONE);
        checkpoint(1, "1.sst=up:a", "2.sst=up:b");
        assertThat(history.reusable(VNODE).isEmpty()).as("finished, not completed").isTrue();
        assertThat(history.reusable(7)).as("a vnode not owned").isEqualTo(UploadedFiles.NONE);
    }

    @Test
    void theCompletedCheckpointsFilesWithTheirHandles() {
        checkpoint(1, "1.sst=up:a", "2.sst=up:b");
        history.completed(1);
        checkpoint(2, "1.sst=ref:a", "2.sst=ref:b", "3.sst=up:c");
        history.completed(2);

        UploadedFiles reusable = history.reusable(VNODE);

        assertThat(reusable.checkpointId()).isEqualTo(2);
        assertThat(byName(reusable))
                .containsExactly(
                        Map.entry("1.sst", "a"), Map.entry("2.sst", "b"), Map.entry("3.sst", "c"));
        assertThat(reusable.files())
                .as("real handles, never placeholders")
                .noneMatch(file -> file.getHandle() instanceof PlaceholderStreamStateHandle);
    }

    /**
     * FLINK-25395's case: checkpoint 2 started before checkpoint 1's completion was notified, so it
     * uploads 1's files again; once 2 completes, 1 is subsumed and its handles are deleted.
     */
    @Test
    void aFinishedSnapshotThatUploadedAFileAgainLeavesItOut() {
        checkpoint(1, "1.sst=up:a", "2.sst=up:b");
        start(2);
        history.completed(1);
        finish(2, "1.sst=up:a2", "2.sst=ref:b");

        assertThat(byName(history.reusable(VNODE))).containsExactly(Map.entry("2.sst", "b"));
    }

    @Test
    void nothingWhileASnapshotFromAnOlderBaseRuns() {
        checkpoint(1, "1.sst=up:a");
        start(2); // its base is older than 1: it may upload 1's files again
        history.completed(1);

        assertThat(history.reusable(VNODE)).isEqualTo(UploadedFiles.NONE);

        finish(2, "1.sst=ref:a", "2.sst=up:b");
        history.ended(2);
        assertThat(byName(history.reusable(VNODE))).containsExactly(Map.entry("1.sst", "a"));
    }

    @Test
    void aSnapshotStartedFromTheBaseDoesNotStopTheHandOver() {
        checkpoint(1, "1.sst=up:a");
        history.completed(1);
        start(2); // refers to 1's files by their handles

        assertThat(byName(history.reusable(VNODE))).containsExactly(Map.entry("1.sst", "a"));
    }

    @Test
    void aSnapshotThatEndedUnseenStopsTheHandOverUntilTheNextCompletion() {
        checkpoint(1, "1.sst=up:a");
        history.completed(1);
        start(2);
        history.ended(2); // failed: its instance may have recorded uploads this history never saw

        assertThat(history.reusable(VNODE)).isEqualTo(UploadedFiles.NONE);

        checkpoint(3, "1.sst=up:a3");
        history.completed(3);
        assertThat(byName(history.reusable(VNODE))).containsExactly(Map.entry("1.sst", "a3"));
    }

    @Test
    void anAbortedSnapshotsUploadsDoNotCount() {
        checkpoint(1, "1.sst=up:a", "2.sst=up:b");
        history.completed(1);
        checkpoint(2, "1.sst=up:a2", "2.sst=ref:b");
        history.aborted(2);

        assertThat(byName(history.reusable(VNODE)))
                .containsExactly(Map.entry("1.sst", "a"), Map.entry("2.sst", "b"));
    }

    @Test
    void aSavepointNeverBecomesTheBase() {
        checkpoint(1, "1.sst=up:a");
        history.completed(1);
        // a savepoint's snapshot is never started here (VnodeSnapshotter), only notified
        history.completed(2);

        assertThat(history.reusable(VNODE).checkpointId()).isEqualTo(1);
    }

    @Test
    void aVnodeThatLeftAndCameBackStartsAgain() {
        checkpoint(1, "1.sst=up:a");
        history.completed(1);
        start(2);
        history.removed(VNODE);
        history.added(VNODE, UploadedFiles.NONE);
        finish(2, "1.sst=ref:a"); // the old instance's upload, finished late

        history.completed(2);

        assertThat(history.reusable(VNODE)).isEqualTo(UploadedFiles.NONE);
    }

    @Test
    void inheritedFilesAreTheBaseAndPassOnAgain() {
        UploadedFiles inherited =
                new UploadedFiles(5, List.of(HandleAndLocalPath.of(file("a"), "1.sst")));
        history.added(VNODE, inherited);

        assertThat(history.reusable(VNODE)).isEqualTo(inherited);

        checkpoint(6, "1.sst=ref:a", "4.sst=up:d");
        history.completed(6);
        assertThat(byName(history.reusable(VNODE)))
                .containsExactly(Map.entry("1.sst", "a"), Map.entry("4.sst", "d"));
    }

    // ------------------------------------------------------------------ helpers

    private void checkpoint(long checkpointId, String... files) {
        start(checkpointId);
        finish(checkpointId, files);
        history.ended(checkpointId);
    }

    private void start(long checkpointId) {
        history.started(checkpointId, List.of(VNODE));
    }

    /** Files as {@code name=up:handle} (uploaded now) or {@code name=ref:handle} (placeholder). */
    private void finish(long checkpointId, String... files) {
        List<HandleAndLocalPath> reported = new ArrayList<>();
        List<HandleAndLocalPath> resolved = new ArrayList<>();
        for (String file : files) {
            String name = file.substring(0, file.indexOf('='));
            boolean uploaded = file.contains("=up:");
            FileStateHandle real = file(file.substring(file.indexOf(':') + 1));
            StreamStateHandle asReported =
                    uploaded
                            ? real
                            : new PlaceholderStreamStateHandle(
                                    real.getStreamStateHandleID(), real.getStateSize(), false);
            reported.add(HandleAndLocalPath.of(asReported, name));
            resolved.add(HandleAndLocalPath.of(real, name));
        }
        history.finished(
                checkpointId,
                VNODE,
                handle(checkpointId, reported),
                handle(checkpointId, resolved));
    }

    private static IncrementalRemoteKeyedStateHandle handle(
            long checkpointId, List<HandleAndLocalPath> shared) {
        return new IncrementalRemoteKeyedStateHandle(
                UUID.randomUUID(),
                KeyGroupRange.of(0, 15),
                checkpointId,
                shared,
                List.of(),
                new ByteStreamStateHandle("meta", new byte[1]),
                1L);
    }

    private static FileStateHandle file(String name) {
        return new FileStateHandle(new Path("/checkpoints/shared/" + name), 100);
    }

    private static Map<String, String> byName(UploadedFiles files) {
        Map<String, String> byName = new TreeMap<>();
        for (HandleAndLocalPath file : files.files()) {
            byName.put(
                    file.getLocalPath(),
                    ((FileStateHandle) file.getHandle()).getFilePath().getName());
        }
        return byName;
    }
}
