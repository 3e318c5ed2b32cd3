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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rhino.core.handover.VnodeMove;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.testjobs.StallingFileSystemFactory;
import io.rhino.handover.operation.OperationKind;
import io.rhino.handover.operation.OperationStep;
import io.rhino.handover.operation.Reconfiguration;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request journal across JobManagers: each {@link JobManager} here is what one JobManager
 * process holds (its registry of reconfigurations and its journals), sharing only the journal's
 * directory, as two JobManagers of a job share the file system.
 */
class RequestJournalsTest {

    private static final String JOB = "0123456789abcdef0123456789abcdef";
    private static final String OPERATOR = "counts";

    @TempDir java.nio.file.Path root;

    private RhinoRuntimeSettings settings;

    @BeforeEach
    void settings() {
        useJournalUnder(root.toUri().toString());
    }

    private void useJournalUnder(String directory) {
        Configuration config = new Configuration();
        config.set(RhinoOptions.REST_REQUEST_JOURNAL_DIR, directory);
        config.set(RhinoOptions.RESCALE_FLINK_REST_ADDRESS, "http://127.0.0.1:1");
        config.set(RhinoOptions.RESCALE_RESTART_TIMEOUT, Duration.ofSeconds(1));
        settings = RhinoRuntimeSettings.from(config, Duration.ofSeconds(60));
    }

    @Test
    void anEndedRequestIsAnsweredByTheNextJobManagerAsRecordedAndARetryGetsIt() throws Exception {
        JobManager first = new JobManager(JOB, settings);
        first.start(
                "moved", OperationKind.MOVE, "moves=[3->1]", OperationStep.nothingToMove(OPERATOR));
        ObjectNode servedByFirst = first.served("moved");

        JobManager second = new JobManager(JOB, settings);
        Reconfiguration taken = second.registry.get("moved").orElseThrow();
        assertThat(taken.status()).isEqualTo(Reconfiguration.Status.COMPLETED);
        ObjectNode expected = servedByFirst.deepCopy();
        ((ObjectNode) expected.get("operation")).put("read-from-request-journal", true);
        assertThat(second.served("moved")).isEqualTo(expected);

        Reconfiguration retried =
                second.registry.start(
                        "moved",
                        OperationKind.MOVE,
                        JOB,
                        List.of(OPERATOR),
                        "moves=[3->1]",
                        () -> {
                            throw new AssertionError("a retry of a recorded request ran again");
                        });
        assertThat(retried).isSameAs(taken);
    }

    @Test
    void aStartIsOnDiskOnceAwaitedSoThatA202OutlivesItsJobManager() throws Exception {
        useJournalUnder(StallingFileSystemFactory.SCHEME + "://" + root.toAbsolutePath());
        JobManager jobManager = new JobManager(JOB, settings);
        StallingFileSystemFactory.WriteStall hanging =
                StallingFileSystemFactory.stallCreatesOf(".tmp-");
        try {
            Reconfiguration started =
                    jobManager.registry.start(
                            "answered",
                            OperationKind.MOVE,
                            JOB,
                            List.of(OPERATOR),
                            "moves=[3->1]",
                            () ->
                                    List.of(
                                            new OperationStep(
                                                    OPERATOR,
                                                    Optional.empty(),
                                                    List.of(new VnodeMove(3, 0, 1)),
                                                    new CompletableFuture<>())));
            assertThat(hanging.awaitStalledCreate(10, TimeUnit.SECONDS)).isTrue();

            // the storage hangs: the 202 is answered after the wait's timeout, unrecorded
            jobManager.journals.awaitStartRecorded(started, Duration.ofMillis(200));
            assertThat(record("answered", ".started.json")).doesNotExist();

            // the storage answers again while a 202 waits: it is answered once recorded
            CompletableFuture.runAsync(
                    () -> {
                        try {
                            Thread.sleep(300);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        hanging.release();
                    });
            jobManager.journals.awaitStartRecorded(started, Duration.ofSeconds(10));
            assertThat(record("answered", ".started.json")).exists();
        } finally {
            hanging.release();
        }
    }

    @Test
    void aLiveHandoverStillRunningWhenItsJobManagerWasLostIsReportedFailedFromThenOn()
            throws Exception {
        JobManager first = new JobManager(JOB, settings);
        first.start(
                "in-flight",
                OperationKind.MOVE,
                "moves=[3->1]",
                new OperationStep(
                        OPERATOR,
                        Optional.empty(),
                        List.of(new VnodeMove(3, 0, 1)),
                        new CompletableFuture<>()));
        assertThat(record("in-flight", ".ended.json")).doesNotExist();

        JobManager second = new JobManager(JOB, settings);
        assertThat(second.registry.get("in-flight").orElseThrow().status())
                .isEqualTo(Reconfiguration.Status.FAILED);
        ObjectNode served = second.served("in-flight");
        assertThat(served.at("/operation/failures/0").asText())
                .contains("JobManager running it was lost")
                .contains("/rhino/v1/jobs/" + JOB + "/operators/" + OPERATOR);
        assertThat(served.at("/operation/handovers/0/status").asText()).isEqualTo("FAILED");
        assertThat(served.at("/operation/handovers/0/moves/0/vnode").asInt()).isEqualTo(3);
        assertThat(record("in-flight", ".ended.json")).exists();

        JobManager third = new JobManager(JOB, settings);
        assertThat(third.served("in-flight").at("/status/id").asText()).isEqualTo("FAILED");
    }

    @Test
    void aRestartRescaleStillRunningIsFollowedOnByTheNextJobManagerAndItsEndRecorded()
            throws Exception {
        JobManager first = new JobManager(JOB, settings);
        long requestedAt = System.currentTimeMillis();
        startRescaleFromTwoToThree(
                first,
                "grow",
                Map.of(
                        "phase",
                        "RESTARTING",
                        "requested-at",
                        requestedAt,
                        "restart-began-at",
                        requestedAt + 10));

        JobManager second = new JobManager(JOB, settings);
        Reconfiguration taken = second.registry.get("grow").orElseThrow();
        assertThat(taken.recorded()).isEmpty();
        ObjectNode restart =
                (ObjectNode) second.served("grow").at("/operation/handovers/0/restart");
        assertThat(restart.path("to-parallelism").asInt()).isEqualTo(3);
        assertThat(restart.path("requested-at").asLong()).isEqualTo(requestedAt);
        assertThat(restart.has("resumed-after-jobmanager-failover-at")).isTrue();

        // no operator comes up in this test: the job's 1 s restart timeout ends it
        CompletableFuture.allOf(
                        taken.steps().stream()
                                .map(OperationStep::result)
                                .toArray(CompletableFuture[]::new))
                .handle((v, e) -> null)
                .get(30, TimeUnit.SECONDS);
        assertThat(taken.status()).isEqualTo(Reconfiguration.Status.FAILED);
        assertThat(taken.failures().get(0)).contains("does not run at parallelism 3");
        awaitWritten(second, record("grow", ".ended.json"));
        assertThat(record("grow", ".ended.json")).exists();

        JobManager third = new JobManager(JOB, settings);
        assertThat(third.served("grow").at("/status/id").asText()).isEqualTo("FAILED");
        assertThat(third.registry.get("grow").orElseThrow().recorded()).isPresent();
    }

    @Test
    void aRestartRescaleTheNextJobManagerCannotFollowIsReportedFailedSayingWhy() throws Exception {
        JobManager first = new JobManager(JOB, settings);
        long requestedAt = System.currentTimeMillis();
        startRescaleFromTwoToThree(
                first, "grow", Map.of("phase", "REQUESTED", "requested-at", requestedAt));

        Configuration withoutFlinkRest = new Configuration();
        withoutFlinkRest.set(RhinoOptions.REST_REQUEST_JOURNAL_DIR, root.toUri().toString());
        settings = RhinoRuntimeSettings.from(withoutFlinkRest, Duration.ofSeconds(60));
        JobManager second = new JobManager(JOB, settings);
        assertThat(second.registry.get("grow").orElseThrow().status())
                .isEqualTo(Reconfiguration.Status.FAILED);
        assertThat(second.served("grow").at("/operation/failures/0").asText())
                .contains("cannot follow it on")
                .contains("rhino.rescale.flink-rest-address");
        assertThat(record("grow", ".ended.json")).exists();
    }

    @Test
    void aRecordThatCannotBeReadIsSkippedAndTheOthersAreTakenOver() throws Exception {
        JobManager first = new JobManager(JOB, settings);
        first.start(
                "kept", OperationKind.MOVE, "moves=[3->1]", OperationStep.nothingToMove(OPERATOR));
        first.start(
                "cut", OperationKind.MOVE, "moves=[4->1]", OperationStep.nothingToMove(OPERATOR));
        Files.writeString(record("cut", ".ended.json"), "{\"operators\": [\"cou");
        Files.writeString(record("cut", ".started.json"), "not json");
        Files.writeString(root.resolve(JOB).resolve(".tmp-left-by-a-lost-jobmanager"), "{");

        JobManager second = new JobManager(JOB, settings);
        assertThat(second.registry.get("kept")).isPresent();
        assertThat(second.registry.get("cut")).isEmpty();
        assertThat(root.resolve(JOB).resolve(".tmp-left-by-a-lost-jobmanager")).doesNotExist();
    }

    @Test
    void theNewestRequestsAreKept() throws Exception {
        RequestJournal journal = new RequestJournal(new Path(root.toUri()), JOB);
        int written = RequestJournals.RETAINED + 3;
        for (int i = 0; i < written; i++) {
            ObjectNode content = Json.MAPPER.createObjectNode();
            content.putArray("operators").add(OPERATOR);
            ObjectNode view = content.putObject("view");
            view.putObject("status").put("id", "COMPLETED");
            view.putObject("operation")
                    .put("request-id", "r" + i)
                    .put("kind", "move")
                    .put("job", JOB)
                    .put("parameters", "moves=[]")
                    .put("requested-at", 1_000L + i)
                    .putArray("failures");
            journal.write("r" + i, RequestJournal.Record.ENDED, content);
        }

        JobManager taking = new JobManager(JOB, settings);
        assertThat(taking.registry.get("r0")).isEmpty();
        assertThat(taking.registry.get("r2")).isEmpty();
        assertThat(taking.registry.get("r3")).isPresent();
        assertThat(taking.registry.get("r" + (written - 1))).isPresent();
        try (Stream<java.nio.file.Path> files = Files.list(root.resolve(JOB))) {
            assertThat(files.count()).isEqualTo(RequestJournals.RETAINED);
        }
    }

    @Test
    void pathsComeOnlyFromAJobIdAndARequestId() {
        assertThatThrownBy(() -> new RequestJournal(new Path(root.toUri()), "../elsewhere"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a Flink job id");
        RequestJournal journal = new RequestJournal(new Path(root.toUri()), JOB);
        assertThatThrownBy(
                        () ->
                                journal.write(
                                        "../../x",
                                        RequestJournal.Record.STARTED,
                                        Json.MAPPER.createObjectNode()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a request id");
    }

    @Test
    void aJournalDirectoryThatIsNotAnAbsolutePathIsRefusedNamingTheOption() {
        Configuration config = new Configuration();
        config.set(RhinoOptions.REST_REQUEST_JOURNAL_DIR, "relative/dir");
        assertThatThrownBy(() -> RhinoRuntimeSettings.from(config, Duration.ofSeconds(60)))
                .hasMessageContaining("rhino.rest.request-journal.dir")
                .hasMessageContaining("relative/dir")
                .hasMessageContaining("absolute");
    }

    /**
     * Starts a restart-based rescale of {@link #OPERATOR} from 2 to 3 subtasks that never ends by
     * itself, reporting {@code phase} (its phase and times) beside the two parallelisms.
     */
    private static void startRescaleFromTwoToThree(
            JobManager jobManager, String requestId, Map<String, Object> phase) throws Exception {
        Map<String, Object> report = new java.util.HashMap<>(phase);
        report.put("from-parallelism", 2);
        report.put("to-parallelism", 3);
        jobManager.start(
                requestId,
                OperationKind.RESCALE,
                "active-subtasks=3, allow-restart",
                OperationStep.reported(OPERATOR, new CompletableFuture<>(), () -> report));
    }

    /**
     * The end is queued by the thread that ended the request, which may do so after this test saw
     * the end: wait for the queue until the record is there, for at most 30 s.
     */
    private static void awaitWritten(JobManager jobManager, java.nio.file.Path record)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(record) && System.nanoTime() < deadline) {
            jobManager.journals.awaitIdle();
            Thread.sleep(10);
        }
    }

    private java.nio.file.Path record(String requestId, String suffix) {
        return root.resolve(JOB).resolve(requestId + suffix);
    }
}
