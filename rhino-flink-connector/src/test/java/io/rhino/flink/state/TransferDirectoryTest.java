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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transfer directories are unique per job, operator and execution on one TaskManager, and the last
 * one of a job deleted takes the job's directory with it.
 */
class TransferDirectoryTest {

    @TempDir Path tmp;

    @Test
    void eachExecutionOfEachOperatorOfEachJobHasItsOwn() throws Exception {
        List<TransferDirectory> directories =
                List.of(
                        TransferDirectory.of(tmp.toFile(), "job-1", "counts", "exec-1"),
                        TransferDirectory.of(tmp.toFile(), "job-1", "counts", "exec-2"),
                        TransferDirectory.of(tmp.toFile(), "job-1", "sums", "exec-3"),
                        TransferDirectory.of(tmp.toFile(), "job-2", "counts", "exec-4"));
        Set<Path> paths =
                directories.stream().map(TransferDirectory::path).collect(Collectors.toSet());
        assertThat(paths).hasSize(4);
        assertThat(paths).allMatch(path -> path.startsWith(tmp.resolve("rhino-transfer")));
    }

    @Test
    void aNameIsOneSafePathSegment() {
        TransferDirectory directory =
                TransferDirectory.of(tmp.toFile(), "job", "../../etc/counts per key", "exec");
        Path operator = directory.path().getParent();
        assertThat(operator.getParent()).isEqualTo(tmp.resolve("rhino-transfer/job"));
        assertThat(operator.getFileName().toString()).startsWith("_.._.._etc_counts_per_key-");
        assertThat(directory.path().getFileName().toString()).isEqualTo("exec");
    }

    @Test
    void deletingTakesEverythingInItAndTheParentsItEmptied() throws Exception {
        TransferDirectory first =
                TransferDirectory.of(tmp.toFile(), "job-1", "counts", "exec-1").create();
        TransferDirectory second =
                TransferDirectory.of(tmp.toFile(), "job-1", "sums", "exec-2").create();
        Files.createDirectories(first.path().resolve("drain-1-vnode-8/db"));
        Files.writeString(first.path().resolve("drain-1-vnode-8/db/000012.sst"), "sst");
        Files.createDirectories(second.path().resolve("drain-1-vnode-8/db"));

        first.delete();
        assertThat(entriesUnder(tmp.resolve("rhino-transfer")))
                .as("the other operator's directory stays, with its job's")
                .containsExactlyInAnyOrder(
                        "job-1",
                        "job-1/sums",
                        "job-1/sums/exec-2",
                        "job-1/sums/exec-2/drain-1-vnode-8",
                        "job-1/sums/exec-2/drain-1-vnode-8/db");

        second.delete();
        assertThat(entriesUnder(tmp.resolve("rhino-transfer")))
                .as("the job's last directory takes the job's with it")
                .isEmpty();
        second.delete();
        assertThat(tmp.resolve("rhino-transfer")).isDirectory();
    }

    @Test
    void creatingAgainAfterTheParentsWereRemovedWorks() throws Exception {
        TransferDirectory first =
                TransferDirectory.of(tmp.toFile(), "job-1", "counts", "exec-1").create();
        first.delete();
        TransferDirectory next =
                TransferDirectory.of(tmp.toFile(), "job-1", "counts", "exec-2").create();
        assertThat(next.path()).isDirectory();
    }

    private static List<String> entriesUnder(Path root) throws Exception {
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.filter(path -> !path.equals(root))
                    .map(path -> root.relativize(path).toString())
                    .toList();
        }
    }
}
