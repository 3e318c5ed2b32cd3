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

import com.fasterxml.jackson.databind.JsonNode;
import io.rhino.flink.cluster.LinkCounters;
import io.rhino.flink.cluster.NetworkBed;
import io.rhino.flink.cluster.ProcessCluster;
import io.rhino.flink.config.RhinoOptions;
import io.rhino.flink.testjobs.Multisets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The smoke of the network bed: a JobManager, three TaskManagers and HDFS each on a host of its own
 * (a network namespace, links shaped to 1 Gbit/s), a Rhino job across the three TaskManagers that
 * replicates every checkpoint to a peer and checkpoints to HDFS across the links, one handover
 * between TaskManagers and one {@code kill -9} of a TaskManager. Its committed output equals plain
 * Flink's, the checkpoints are in HDFS, the restored vnodes came from replicas, and once the bed is
 * down nothing of it is left. The full set of faults: {@code NetworkBedFaultsITCase} ({@code
 * -Pnetbed}).
 */
class NetworkBedITCase {

    private static final Logger LOG = LoggerFactory.getLogger(NetworkBedITCase.class);

    private static final String NAME = "counts";
    private static final int VNODES = 12;
    private static final double EVENTS_PER_SECOND = 3_000;

    /**
     * Long enough for a failover on a loaded machine: a shorter retention deleted the survivors'
     * replicas before the restarted subtasks asked for them.
     */
    private static final Duration RETENTION = Duration.ofSeconds(30);

    @TempDir Path directory;

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aRhinoJobAcrossThreeHostsMovesStateAndSurvivesAKillExactlyOnce() throws Exception {
        FileCountsJob job =
                new FileCountsJob(
                        NAME,
                        BedCluster.TASK_MANAGERS,
                        VNODES,
                        (long) (EVENTS_PER_SECOND * 60),
                        2_000,
                        EVENTS_PER_SECOND);
        NetworkBed bed;
        try (BedCluster hosts =
                BedCluster.start(
                        directory,
                        FileCountsJob.oneSubtaskPerTaskManager(),
                        (index, config) ->
                                config.set(
                                        RhinoOptions.REPLICATION_DIR,
                                        directory.resolve("replicas-" + index).toString()))) {
            bed = hosts.bed;
            ProcessCluster cluster = hosts.cluster;
            Configuration config =
                    BedCluster.withReplication(
                            hosts.jobConfig("checkpoints", Duration.ofSeconds(2)), 2, RETENTION);
            RhinoClusters.withRestarts(config, 1_000, Duration.ofSeconds(1));
            Path output = directory.resolve("output");
            JobClient client = job.submit(cluster, config, output, "netbed-smoke");
            String jobId = client.getJobID().toString();
            RemoteOperator operator =
                    new RemoteOperator(cluster, BedCluster.RHINO_REST_PORT, jobId, NAME, VNODES);
            JsonNode view = operator.awaitRunning(-1, Duration.ofSeconds(180));
            for (JsonNode vnode : view.get("vnodes")) {
                assertThat(vnode.get("taskmanager").asText())
                        .as("vnode %s's TaskManager runs on a host of the bed", vnode)
                        .startsWith("10.213.");
            }
            long first = cluster.checkpoint(jobId, Duration.ofSeconds(60));
            Map<String, LinkCounters> before = bed.counters();
            operator.moveBetweenTaskManagers(new Random(41), 1, "netbed");
            cluster.checkpoint(jobId, Duration.ofSeconds(60));
            Map<String, LinkCounters> moved = bed.counters();

            int victim = operator.taskManagerOf(view.at("/vnodes/0/taskmanager").asText());
            long restartsBefore = JobRestarts.restarts(cluster, jobId);
            cluster.kill(victim);
            assertThat(
                            JobRestarts.awaitRestartAfter(
                                    cluster, jobId, restartsBefore, Duration.ofSeconds(60)))
                    .as("the job restarts after the kill of TaskManager %d", victim)
                    .isTrue();
            cluster.restart(victim);
            cluster.awaitTaskManagers(BedCluster.TASK_MANAGERS, Duration.ofSeconds(120));
            if (!cluster.jobStatus(jobId).equals("FINISHED")) {
                operator.awaitRunning(-1, Duration.ofSeconds(180));
            }

            FileCountsJob.releaseInput(output);
            client.getJobExecutionResult().get(5, TimeUnit.MINUTES);
            assertThat(Multisets.counts(RemoteOperator.committedLines(output)))
                    .as("committed output on the bed after a move and a kill vs plain Flink")
                    .isEqualTo(Multisets.counts(job.plainFlinkLines()));
            List<String> checkpoints = new ArrayList<>();
            org.apache.hadoop.fs.Path jobDirectory =
                    new org.apache.hadoop.fs.Path(hosts.hdfs.uri() + "/checkpoints/" + jobId);
            try (FileSystem hdfs =
                    FileSystem.newInstance(
                            jobDirectory.toUri(), new org.apache.hadoop.conf.Configuration())) {
                for (FileStatus status : hdfs.listStatus(jobDirectory)) {
                    checkpoints.add(status.getPath().getName());
                }
            }
            assertThat(checkpoints).as("the job's checkpoint directory in HDFS").contains("shared");
            // the killed TaskManager's vnodes have their replica on a survivor (never their own)
            long restoredFromReplicas = restoresFromReplicas(cluster);
            assertThat(restoredFromReplicas).as("vnodes restored from replicas").isPositive();
            LOG.info(
                    "Network bed smoke: first checkpoint {}; bytes across the links during the move"
                            + " and a checkpoint {}; {} vnodes restored from replicas; HDFS holds {}",
                    first,
                    difference(moved, before),
                    restoredFromReplicas,
                    checkpoints);
            for (int index = 0; index < BedCluster.TASK_MANAGERS; index++) {
                assertThat(difference(moved, before).get(BedCluster.taskManager(index)).total())
                        .as("bytes across TaskManager %d's link during the move", index)
                        .isPositive();
            }
        }
        assertThat(bed.leftOver()).as("namespaces or links of %s left", bed.prefix()).isFalse();
    }

    /** Vnodes the TaskManagers restored from a replica, as their logs say. */
    static long restoresFromReplicas(ProcessCluster cluster) throws java.io.IOException {
        long restores = 0;
        for (int index = 0; index < cluster.taskManagers(); index++) {
            Path log = cluster.taskManagerDirectory(index).resolve("taskmanager-" + index + ".log");
            try (java.util.stream.Stream<String> lines = java.nio.file.Files.lines(log)) {
                restores += lines.filter(line -> line.contains("from a replica (")).count();
            }
        }
        return restores;
    }

    static Map<String, LinkCounters> difference(
            Map<String, LinkCounters> after, Map<String, LinkCounters> before) {
        Map<String, LinkCounters> difference = new java.util.LinkedHashMap<>();
        after.forEach((host, counters) -> difference.put(host, counters.minus(before.get(host))));
        return difference;
    }
}
