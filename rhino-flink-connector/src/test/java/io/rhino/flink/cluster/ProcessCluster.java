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

package io.rhino.flink.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rhino.replication.testing.StablePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;
import org.apache.flink.runtime.taskexecutor.TaskManagerRunner;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;
import org.apache.flink.runtime.zookeeper.FlinkZooKeeperQuorumPeer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Flink session cluster of separate processes on this machine, without Docker: one JobManager
 * ({@link StandaloneSessionClusterEntrypoint}) on 127.0.0.1 and N TaskManagers ({@link
 * TaskManagerRunner}), TaskManager i on its own address 127.0.0.(i+2), each JVM with its own
 * configuration, memory, working and temporary directories and log file under the cluster's
 * directory, all from the test's class path. Jobs go through Flink's REST API; TaskManagers can be
 * killed with SIGKILL and started again.
 *
 * <p>{@link #start(Path, ClusterHosts, int, Configuration, BiConsumer)} places the processes on
 * other hosts instead, e.g. each in a network namespace of a {@link NetworkBed}, bound to that
 * host's address.
 *
 * <p>The processes share the test JVM's class path, so jobs need no jar: their classes load from
 * the parent class loader.
 */
public final class ProcessCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessCluster.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Path directory;
    private final ClusterHosts hosts;
    private final Configuration common;
    private final BiConsumer<Integer, Configuration> perTaskManager;
    private final int rpcPort;
    private final int restPort;
    private final Configuration jobManagerConfig;
    private final FlinkProcess zooKeeper;
    private FlinkProcess jobManager;
    private final List<FlinkProcess> taskManagers = new ArrayList<>();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ProcessCluster(
            Path directory,
            ClusterHosts hosts,
            Configuration common,
            BiConsumer<Integer, Configuration> perTaskManager,
            int rpcPort,
            int restPort,
            Configuration jobManagerConfig,
            FlinkProcess zooKeeper) {
        this.directory = directory;
        this.hosts = hosts;
        this.common = common;
        this.perTaskManager = perTaskManager;
        this.rpcPort = rpcPort;
        this.restPort = restPort;
        this.jobManagerConfig = jobManagerConfig;
        this.zooKeeper = zooKeeper;
    }

    /**
     * Starts a JobManager and {@code taskManagers} TaskManagers and waits until all registered.
     *
     * @param common configuration of every process (slots, memory, heartbeats, ...)
     * @param perTaskManager adds TaskManager i's own options (e.g. its replication directory)
     */
    public static ProcessCluster start(
            Path directory,
            int taskManagers,
            Configuration common,
            BiConsumer<Integer, Configuration> perTaskManager)
            throws Exception {
        return start(
                directory, ClusterHosts.loopback(), taskManagers, common, perTaskManager, null);
    }

    /**
     * As {@link #start(Path, int, Configuration, BiConsumer)}, each process on its host of {@code
     * hosts} (e.g. {@link NetworkBed#clusterHosts}), bound to that host's address.
     */
    public static ProcessCluster start(
            Path directory,
            ClusterHosts hosts,
            int taskManagers,
            Configuration common,
            BiConsumer<Integer, Configuration> perTaskManager)
            throws Exception {
        return start(directory, hosts, taskManagers, common, perTaskManager, null);
    }

    /**
     * Starts a cluster whose JobManager is highly available: a ZooKeeper server in its own process
     * elects the leader and keeps the job and its checkpoints' pointers, with the metadata under
     * the cluster's directory, so a JobManager killed by {@link #killJobManager()} and started
     * again by {@link #restartJobManager()} recovers the running jobs from their latest completed
     * checkpoint, as Flink's JobManager failover does in production.
     */
    public static ProcessCluster startHighlyAvailable(
            Path directory,
            int taskManagers,
            Configuration common,
            BiConsumer<Integer, Configuration> perTaskManager)
            throws Exception {
        int zooKeeperPort = freePort();
        Path zkDirectory = directory.resolve("zookeeper");
        Files.createDirectories(zkDirectory.resolve("data"));
        Path zooCfg = zkDirectory.resolve("zoo.cfg");
        Files.writeString(
                zooCfg,
                String.join(
                        "\n",
                        "tickTime=500",
                        "initLimit=10",
                        "syncLimit=5",
                        "clientPortAddress=127.0.0.1",
                        "clientPort=" + zooKeeperPort,
                        "dataDir=" + zkDirectory.resolve("data"),
                        "maxSessionTimeout=60000",
                        ""));
        FlinkProcess zooKeeper =
                FlinkProcess.start(
                        "zookeeper",
                        zkDirectory,
                        FlinkZooKeeperQuorumPeer.class.getName(),
                        new Configuration(),
                        List.of("-Xmx256m"),
                        List.of("--zkConfigFile", zooCfg.toString(), "--peerId", "1"));
        Configuration highlyAvailable = new Configuration(common);
        highlyAvailable.setString("high-availability.type", "zookeeper");
        highlyAvailable.setString(
                "high-availability.zookeeper.quorum", "127.0.0.1:" + zooKeeperPort);
        highlyAvailable.setString(
                "high-availability.storageDir", directory.resolve("ha").toUri().toString());
        highlyAvailable.setString("high-availability.cluster-id", "rhino-process-cluster");
        // a killed JobManager's leadership ends within seconds, not after the default 60 s
        highlyAvailable.setString("high-availability.zookeeper.client.session-timeout", "6000");
        highlyAvailable.setString("high-availability.zookeeper.client.connection-timeout", "6000");
        try {
            return start(
                    directory,
                    ClusterHosts.loopback(),
                    taskManagers,
                    highlyAvailable,
                    perTaskManager,
                    zooKeeper);
        } catch (Exception | Error e) {
            zooKeeper.close();
            throw e;
        }
    }

    private static ProcessCluster start(
            Path directory,
            ClusterHosts hosts,
            int taskManagers,
            Configuration common,
            BiConsumer<Integer, Configuration> perTaskManager,
            FlinkProcess zooKeeper)
            throws Exception {
        int rpcPort = freePort();
        int restPort = freePort();
        Configuration config = baseConfig(hosts, common, rpcPort);
        config.setString("rest.address", hosts.jobManagerAddress());
        config.setString("rest.bind-address", hosts.jobManagerAddress());
        config.setString("rest.port", String.valueOf(restPort));
        config.setString("jobmanager.bind-host", hosts.jobManagerAddress());
        Path jmDirectory = directory.resolve("jobmanager");
        config.setString("io.tmp.dirs", jmDirectory.resolve("tmp").toString());
        config.setString("process.jobmanager.working-dir", jmDirectory.resolve("work").toString());
        Files.createDirectories(jmDirectory.resolve("tmp"));
        ProcessCluster cluster =
                new ProcessCluster(
                        directory,
                        hosts,
                        common,
                        perTaskManager,
                        rpcPort,
                        restPort,
                        config,
                        zooKeeper);
        try {
            cluster.jobManager = cluster.startJobManager();
            for (int index = 0; index < taskManagers; index++) {
                cluster.taskManagers.add(cluster.startTaskManager(index));
            }
            cluster.awaitTaskManagers(taskManagers, Duration.ofSeconds(120));
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
        LOG.info(
                "Process cluster up: JobManager REST {}, TaskManagers {}",
                cluster.restAddress(),
                cluster.taskManagers);
        return cluster;
    }

    private FlinkProcess startJobManager() throws IOException {
        JobManagerProcessSpec spec = JobManagerProcessUtils.processSpecFromConfig(jobManagerConfig);
        return FlinkProcess.start(
                "jobmanager",
                directory.resolve("jobmanager"),
                hosts.jobManagerLauncher(),
                StandaloneSessionClusterEntrypoint.class.getName(),
                jobManagerConfig,
                split(JobManagerProcessUtils.generateJvmParametersStr(spec, jobManagerConfig)),
                split(JobManagerProcessUtils.generateDynamicConfigsStr(spec)));
    }

    /** {@code kill -9} of the JobManager. */
    public void killJobManager() throws InterruptedException {
        LOG.info("Killing {} with SIGKILL", jobManager);
        jobManager.kill();
    }

    /**
     * Starts a killed JobManager again with the same addresses, ports and directories; with {@link
     * #startHighlyAvailable} it recovers the jobs that ran.
     */
    public void restartJobManager() throws IOException {
        if (jobManager.isAlive()) {
            throw new IllegalStateException(jobManager + " is still running");
        }
        jobManager = startJobManager();
    }

    private static Configuration baseConfig(ClusterHosts hosts, Configuration common, int rpcPort) {
        Configuration config = new Configuration();
        config.setString("jobmanager.rpc.address", hosts.jobManagerAddress());
        config.setString("jobmanager.rpc.port", String.valueOf(rpcPort));
        config.setString("jobmanager.memory.process.size", "1024m");
        config.setString("taskmanager.memory.process.size", "1536m");
        // a killed TaskManager is declared lost within seconds, not Flink's default 50 s
        config.setString("heartbeat.interval", "1000");
        config.setString("heartbeat.timeout", "6000");
        config.addAll(common);
        return config;
    }

    /** The address TaskManager {@code index} of a loopback cluster binds to and announces. */
    public static String taskManagerHost(int index) {
        return "127.0.0." + (index + 2);
    }

    /** The address TaskManager {@code index} of this cluster binds to and announces. */
    public String taskManagerAddress(int index) {
        return hosts.taskManagerAddress(index);
    }

    /** The address the JobManager binds to: its RPC, Flink's REST API and Rhino's. */
    public String jobManagerAddress() {
        return hosts.jobManagerAddress();
    }

    private FlinkProcess startTaskManager(int index) throws IOException {
        String name = "taskmanager-" + index;
        Path tmDirectory = directory.resolve(name);
        Files.createDirectories(tmDirectory.resolve("tmp"));
        Configuration config = baseConfig(hosts, common, rpcPort);
        config.setString("taskmanager.host", hosts.taskManagerAddress(index));
        config.setString("taskmanager.bind-host", hosts.taskManagerAddress(index));
        config.setString("taskmanager.resource-id", name);
        config.setString("io.tmp.dirs", tmDirectory.resolve("tmp").toString());
        config.setString("process.taskmanager.working-dir", tmDirectory.resolve("work").toString());
        perTaskManager.accept(index, config);
        TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(config);
        return FlinkProcess.start(
                name,
                tmDirectory,
                hosts.taskManagerLauncher(index),
                TaskManagerRunner.class.getName(),
                config,
                split(ProcessMemoryUtils.generateJvmParametersStr(spec)),
                split(TaskExecutorProcessUtils.generateDynamicConfigsStr(spec)));
    }

    /** {@code http://<JobManager address>:<port>} of the JobManager's Flink REST API. */
    public String restAddress() {
        return "http://" + hosts.jobManagerAddress() + ":" + restPort;
    }

    public int restPort() {
        return restPort;
    }

    public int taskManagers() {
        return taskManagers.size();
    }

    /** The current JobManager process's log file. */
    public Path jobManagerLog() {
        return jobManager.log();
    }

    /** TaskManager {@code index}'s directory: configuration, log, tmp and working directories. */
    public Path taskManagerDirectory(int index) {
        return taskManagers.get(index).directory();
    }

    public boolean isAlive(int index) {
        return taskManagers.get(index).isAlive();
    }

    /** TaskManager {@code index}'s current process id. */
    public long pid(int index) {
        return taskManagers.get(index).pid();
    }

    /** {@code kill -9} of TaskManager {@code index}. */
    public void kill(int index) throws InterruptedException {
        FlinkProcess taskManager = taskManagers.get(index);
        LOG.info("Killing {} with SIGKILL", taskManager);
        taskManager.kill();
    }

    /** Starts a killed TaskManager {@code index} again, with the same address and directories. */
    public void restart(int index) throws IOException {
        if (taskManagers.get(index).isAlive()) {
            throw new IllegalStateException(taskManagers.get(index) + " is still running");
        }
        taskManagers.set(index, startTaskManager(index));
    }

    /** Waits until the JobManager knows {@code expected} TaskManagers. */
    public void awaitTaskManagers(int expected, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        int registered = -1;
        while (System.nanoTime() < deadline) {
            if (!jobManager.isAlive()) {
                throw new IllegalStateException(
                        "The JobManager died; see " + jobManager.log() + " and its .out file");
            }
            try {
                registered = get("/taskmanagers").path("taskmanagers").size();
                if (registered == expected) {
                    return;
                }
            } catch (IOException notUpYet) {
                // REST endpoint still starting
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(
                expected
                        + " TaskManagers expected, "
                        + registered
                        + " registered after "
                        + timeout
                        + "; processes: "
                        + taskManagers
                        + ", logs under "
                        + directory);
    }

    /** GET on the JobManager's Flink REST API. */
    public JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response =
                http.send(
                        HttpRequest.newBuilder(URI.create(restAddress() + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + path + " -> " + response.statusCode());
        }
        return MAPPER.readTree(response.body());
    }

    /**
     * Takes a checkpoint through Flink's REST API and waits until it completed, trying again while
     * the job (re)starts.
     *
     * @return the checkpoint's id
     */
    public long checkpoint(String jobId, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String lastFailure = "none";
        while (System.nanoTime() < deadline) {
            HttpResponse<String> accepted =
                    http.send(
                            HttpRequest.newBuilder(
                                            URI.create(
                                                    restAddress()
                                                            + "/jobs/"
                                                            + jobId
                                                            + "/checkpoints"))
                                    .timeout(Duration.ofSeconds(10))
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString("{}"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            if (accepted.statusCode() != 202) {
                throw new IOException(
                        "Checkpoint of "
                                + jobId
                                + " refused: "
                                + accepted.statusCode()
                                + " "
                                + accepted.body());
            }
            String trigger = MAPPER.readTree(accepted.body()).path("request-id").asText();
            JsonNode status;
            do {
                Thread.sleep(100);
                status = get("/jobs/" + jobId + "/checkpoints/" + trigger);
            } while (status.at("/status/id").asText().equals("IN_PROGRESS"));
            JsonNode operation = status.path("operation");
            if (operation.has("checkpointId")) {
                return operation.get("checkpointId").asLong();
            }
            lastFailure = operation.path("failure-cause").toString();
            Thread.sleep(500);
        }
        throw new IllegalStateException(
                "No checkpoint of "
                        + jobId
                        + " completed within "
                        + timeout
                        + "; last failure: "
                        + lastFailure);
    }

    /** The Flink status of a job, e.g. RUNNING, RESTARTING, FINISHED. */
    public String jobStatus(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId).path("state").asText();
    }

    /** An environment that submits to this cluster through its REST API. */
    public StreamExecutionEnvironment environment(Configuration jobConfig) {
        return StreamExecutionEnvironment.createRemoteEnvironment(
                hosts.jobManagerAddress(), restPort, jobConfig);
    }

    @Override
    public void close() throws InterruptedException {
        for (FlinkProcess taskManager : taskManagers) {
            taskManager.close();
        }
        if (jobManager != null) {
            jobManager.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    private static List<String> split(String options) {
        return Arrays.stream(options.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
    }

    /**
     * A port free on the loopback address now, e.g. for a server of a job on this cluster, that a
     * restarted process can bind again ({@link StablePorts}).
     */
    public static int freePort() throws IOException {
        return StablePorts.next();
    }

    @Override
    public String toString() {
        return "ProcessCluster["
                + directory
                + ", "
                + hosts
                + ", "
                + jobManager
                + ", "
                + taskManagers
                + "]";
    }
}
