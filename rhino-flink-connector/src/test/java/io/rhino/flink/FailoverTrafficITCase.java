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

package io.rhino.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.rhino.flink.cluster.LinkCounters;
import io.rhino.flink.cluster.ProcessCluster;
import io.rhino.flink.config.RhinoOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bytes on each host's link during a failover, on the network bed: the same Rhino job (about 100
 * bytes of state per event) once with its checkpoints replicated to a peer ({@code
 * rhino.replication.mode: peers}, factor 2) and once without replication, restoring from HDFS as
 * Flink does. Each run fills the state, takes a checkpoint, kills the TaskManager of vnode 0 with
 * {@code kill -9}, and reads every link's veth counters before the kill and once every task runs
 * again (the restore done). The figures go to the log and to {@code
 * target/netbed-failover-traffic.csv}; {@code -Pnetbed} runs it ({@code
 * -Drhino.netbed.traffic-state-mb=N} for another state size).
 */
class FailoverTrafficITCase {

    private static final Logger LOG = LoggerFactory.getLogger(FailoverTrafficITCase.class);

    private static final String NAME = "counts";
    private static final int VNODES = 12;
    private static final double EVENTS_PER_SECOND = 10_000;

    @TempDir Path directory;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One run's figures. */
    record Run(
            String variant,
            long stateBytes,
            long failoverMillis,
            long restoresFromReplicas,
            Map<String, LinkCounters> crossed) {}

    @Test
    @Timeout(value = 40, unit = TimeUnit.MINUTES)
    void aFailoverWithReplicasMovesLessOverTheLinksThanARestoreFromHdfs() throws Exception {
        assumeTrue(
                Boolean.getBoolean("rhino.netbed.faults"),
                "the failover traffic measurement runs with -Pnetbed");
        long stateBytes = Long.getLong("rhino.netbed.traffic-state-mb", 48) * 1024 * 1024;
        List<Run> runs = new ArrayList<>();
        try (BedCluster hosts =
                BedCluster.start(
                        directory,
                        FileCountsJob.oneSubtaskPerTaskManager(),
                        (index, config) ->
                                config.set(
                                        RhinoOptions.REPLICATION_DIR,
                                        directory.resolve("replicas-" + index).toString()))) {
            runs.add(run(hosts, "rhino-replicas", true, stateBytes));
            runs.add(run(hosts, "rhino-hdfs", false, stateBytes));
        }
        List<String> csv = new ArrayList<>();
        csv.add(
                "variant,state_bytes,failover_ms,vnodes_from_replicas,host,sent_bytes,received_bytes");
        for (Run run : runs) {
            run.crossed()
                    .forEach(
                            (host, bytes) ->
                                    csv.add(
                                            String.join(
                                                    ",",
                                                    run.variant(),
                                                    String.valueOf(run.stateBytes()),
                                                    String.valueOf(run.failoverMillis()),
                                                    String.valueOf(run.restoresFromReplicas()),
                                                    host,
                                                    String.valueOf(bytes.sent()),
                                                    String.valueOf(bytes.received()))));
        }
        Path report = Path.of("target", "netbed-failover-traffic.csv");
        Files.write(report, csv);
        LOG.info("Failover traffic on the network bed ({}):\n{}", report, String.join("\n", csv));
        Run replicas = runs.get(0);
        Run storage = runs.get(1);
        assertThat(replicas.crossed().get(BedCluster.STORAGE).sent())
                .as("bytes the checkpoint storage sent during the failover with replicas")
                .isLessThan(storage.crossed().get(BedCluster.STORAGE).sent());
    }

    private Run run(BedCluster hosts, String variant, boolean replicate, long stateBytes)
            throws Exception {
        ProcessCluster cluster = hosts.cluster;
        FileCountsJob job =
                new FileCountsJob(
                                NAME,
                                BedCluster.TASK_MANAGERS,
                                VNODES,
                                (long) (EVENTS_PER_SECOND * 3_600),
                                20_000,
                                EVENTS_PER_SECOND)
                        .withHistory();
        Configuration config = hosts.jobConfig(variant, RhinoClusters.ONLY_TRIGGERED_CHECKPOINTS);
        if (replicate) {
            BedCluster.withReplication(config, 2, Duration.ofMinutes(5));
        }
        RhinoClusters.withRestarts(config, 1_000, Duration.ofSeconds(1));
        JobClient client =
                job.submit(cluster, config, directory.resolve("output-" + variant), variant);
        String jobId = client.getJobID().toString();
        RemoteOperator operator =
                new RemoteOperator(cluster, BedCluster.RHINO_REST_PORT, jobId, NAME, VNODES);
        JsonNode view = operator.awaitRunning(-1, Duration.ofSeconds(180));
        long size = 0;
        long deadline = System.nanoTime() + Duration.ofMinutes(15).toNanos();
        while (size < stateBytes) {
            // checkpoints as the state grows, so that each replicates a part of it
            Thread.sleep(5_000);
            long checkpoint = cluster.checkpoint(jobId, Duration.ofSeconds(120));
            size = stateSize(cluster, jobId, checkpoint);
            LOG.info("{}: checkpoint {} holds {} bytes of state", variant, checkpoint, size);
            assertThat(System.nanoTime()).as("state filled in time").isLessThan(deadline);
        }
        long restoresBefore = NetworkBedITCase.restoresFromReplicas(cluster);
        int victim = operator.taskManagerOf(view.at("/vnodes/0/taskmanager").asText());
        long restartsBefore = JobRestarts.restarts(cluster, jobId);
        Map<String, LinkCounters> before = hosts.bed.counters();
        long killed = System.nanoTime();
        cluster.kill(victim);
        JobRestarts.awaitRestartAfter(cluster, jobId, restartsBefore, Duration.ofSeconds(60));
        JobRestarts.awaitAllRunning(cluster, jobId, Duration.ofMinutes(5));
        long failoverMillis = (System.nanoTime() - killed) / 1_000_000;
        Map<String, LinkCounters> crossed =
                NetworkBedITCase.difference(hosts.bed.counters(), before);
        long restores = NetworkBedITCase.restoresFromReplicas(cluster) - restoresBefore;
        LOG.info(
                "{}: {} bytes of state, failover after the kill of TaskManager {} took {} ms, {}"
                        + " vnodes from replicas; bytes across the links {}",
                variant,
                size,
                victim,
                failoverMillis,
                restores,
                crossed);
        cancel(cluster, jobId);
        cluster.restart(victim);
        cluster.awaitTaskManagers(BedCluster.TASK_MANAGERS, Duration.ofSeconds(120));
        return new Run(variant, size, failoverMillis, restores, crossed);
    }

    /** The full state size of a completed checkpoint, from Flink's checkpoint statistics. */
    private static long stateSize(ProcessCluster cluster, String jobId, long checkpoint)
            throws Exception {
        JsonNode details = cluster.get("/jobs/" + jobId + "/checkpoints/details/" + checkpoint);
        return details.path("state_size").asLong();
    }

    private void cancel(ProcessCluster cluster, String jobId) throws Exception {
        HttpResponse<String> reply =
                http.send(
                        HttpRequest.newBuilder(
                                        URI.create(
                                                cluster.restAddress()
                                                        + "/jobs/"
                                                        + jobId
                                                        + "?mode=cancel"))
                                .method("PATCH", HttpRequest.BodyPublishers.noBody())
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(reply.statusCode()).as(reply.body()).isEqualTo(202);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!cluster.jobStatus(jobId).equals("CANCELED") && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
    }
}
