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

package io.rhino.flink.reconfiguration;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rhino.core.handover.VnodeMove;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.handover.operation.OperationKind;
import io.rhino.handover.operation.OperationStep;
import io.rhino.handover.operation.Reconfiguration;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request journal on a real HDFS (a NameNode and a DataNode in this JVM), the file system a
 * JobManager and its successor share in production: HDFS does not rename onto an existing file,
 * which the journal's replacement of a record must handle.
 */
class RequestJournalHdfsITCase {

    // each test its own job, so its own directory
    private final String job = new org.apache.flink.api.common.JobID().toHexString();

    @TempDir static java.nio.file.Path hdfsBaseDir;

    private static MiniDFSCluster hdfs;
    private static Path root;

    @BeforeAll
    static void startHdfs() throws IOException {
        hdfs = new MiniDFSCluster.Builder(new HdfsConfiguration(), hdfsBaseDir.toFile()).build();
        hdfs.waitActive();
        root = new Path("hdfs://127.0.0.1:" + hdfs.getNameNodePort() + "/rhino/requests");
    }

    @AfterAll
    static void stopHdfs() {
        if (hdfs != null) {
            hdfs.shutdown();
        }
    }

    @Test
    void aRecordIsReplacedAndTheEndedOneWins() throws Exception {
        RequestJournal journal = new RequestJournal(root, job);
        journal.write("grow", RequestJournal.Record.STARTED, content("phase", "REQUESTED"));
        journal.write("grow", RequestJournal.Record.STARTED, content("phase", "RESTARTING"));
        assertThat(journal.latest().get("grow").path("phase").asText()).isEqualTo("RESTARTING");

        journal.write("grow", RequestJournal.Record.ENDED, content("phase", "RUNNING"));
        assertThat(journal.latest().get("grow").path("phase").asText()).isEqualTo("RUNNING");
        assertThat(names(journal))
                .containsExactlyInAnyOrder("grow.started.json", "grow.ended.json");

        journal.delete("grow");
        assertThat(journal.latest()).isEmpty();
    }

    @Test
    void whatALostJobManagerLeftHalfWrittenIsSkippedOrDeleted() throws Exception {
        RequestJournal journal = new RequestJournal(root, job);
        journal.write("whole", RequestJournal.Record.ENDED, content("phase", "RUNNING"));
        FileSystem fs = root.getFileSystem();
        writeRaw(fs, new Path(journal.directory(), ".tmp-left-by-a-lost-jobmanager"), "{\"ph");
        writeRaw(fs, new Path(journal.directory(), "cut.ended.json"), "{\"operators\": [\"cou");

        assertThat(journal.latest()).containsOnlyKeys("whole");
        assertThat(names(journal)).doesNotContain(".tmp-left-by-a-lost-jobmanager");
        journal.delete("whole");
        journal.delete("cut");
    }

    @Test
    void theNextJobManagerAnswersAnEndedRequestAndFailsALiveOneItsPredecessorLeft()
            throws Exception {
        Configuration config = new Configuration();
        config.set(RhinoOptions.REST_REQUEST_JOURNAL_DIR, root.toString());
        RhinoRuntimeSettings settings = RhinoRuntimeSettings.from(config, Duration.ofSeconds(60));

        JobManager first = new JobManager(job, settings);
        first.start(
                "moved", OperationKind.MOVE, "moves=[3->1]", OperationStep.nothingToMove("counts"));
        ObjectNode servedByFirst = first.served("moved");
        first.start(
                "in-flight",
                OperationKind.MOVE,
                "moves=[2->0]",
                new OperationStep(
                        "counts",
                        Optional.empty(),
                        List.of(new VnodeMove(2, 1, 0)),
                        new CompletableFuture<>()));

        JobManager second = new JobManager(job, settings);
        ObjectNode expected = servedByFirst.deepCopy();
        ((ObjectNode) expected.get("operation")).put("read-from-request-journal", true);
        assertThat(second.served("moved")).isEqualTo(expected);
        assertThat(second.registry.get("in-flight").orElseThrow().status())
                .isEqualTo(Reconfiguration.Status.FAILED);
        assertThat(names(new RequestJournal(root, job))).contains("in-flight.ended.json");
    }

    private static ObjectNode content(String field, String value) {
        ObjectNode content = Json.MAPPER.createObjectNode();
        content.put(field, value);
        return content;
    }

    private static List<String> names(RequestJournal journal) throws IOException {
        return java.util.Arrays.stream(
                        journal.directory().getFileSystem().listStatus(journal.directory()))
                .map(status -> status.getPath().getName())
                .toList();
    }

    private static void writeRaw(FileSystem fs, Path path, String text) throws IOException {
        try (OutputStream out = fs.create(path, FileSystem.WriteMode.OVERWRITE)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }
}
