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

package io.rhino.deployment;

import io.rhino.replication.testing.StablePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ConfigurationUtils;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;

/**
 * A Flink session cluster of separate processes started the way Flink's scripts start them: a
 * {@code lib/} directory of jars, the class path {@code lib/*} and nothing else, a {@code conf/}
 * directory per process. One JobManager on 127.0.0.1, TaskManager i on 127.0.0.(i+2). The test
 * JVM's class path reaches none of them: jobs arrive as jars through Flink's REST API.
 */
final class FlinkSession implements AutoCloseable {

    private final Path directory;
    private final Path lib;
    private final Configuration common;
    private final BiConsumer<Integer, Configuration> perTaskManager;
    private final int rpcPort;
    private final FlinkRest rest;
    private final FlinkProcess jobManager;
    private final List<FlinkProcess> taskManagers = new ArrayList<>();

    private FlinkSession(
            Path directory,
            Path lib,
            Configuration common,
            BiConsumer<Integer, Configuration> perTaskManager,
            int rpcPort,
            int restPort)
            throws IOException {
        this.directory = directory;
        this.lib = lib;
        this.common = common;
        this.perTaskManager = perTaskManager;
        this.rpcPort = rpcPort;
        this.rest = new FlinkRest("http://127.0.0.1:" + restPort);
        Configuration config = baseConfig();
        config.setString("rest.address", "127.0.0.1");
        config.setString("rest.bind-address", "127.0.0.1");
        config.setString("rest.port", String.valueOf(restPort));
        config.setString("jobmanager.bind-host", "127.0.0.1");
        Path home = directory.resolve("jobmanager");
        config.setString("io.tmp.dirs", home.resolve("tmp").toString());
        config.setString("web.tmpdir", home.resolve("web").toString());
        Files.createDirectories(home.resolve("tmp"));
        JobManagerProcessSpec spec = JobManagerProcessUtils.processSpecFromConfig(config);
        this.jobManager =
                FlinkProcess.start(
                        "jobmanager",
                        home,
                        lib,
                        "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                        config,
                        split(JobManagerProcessUtils.generateJvmParametersStr(spec, config)),
                        split(JobManagerProcessUtils.generateDynamicConfigsStr(spec)));
    }

    /**
     * Starts the cluster on the jars {@code libJars} (copied into its {@code lib/}) and waits until
     * its {@code taskManagers} TaskManagers registered.
     */
    static FlinkSession start(
            Path directory,
            List<Path> libJars,
            int taskManagers,
            Configuration common,
            BiConsumer<Integer, Configuration> perTaskManager)
            throws Exception {
        Path lib = Files.createDirectories(directory.resolve("lib"));
        for (Path jar : libJars) {
            Files.copy(jar, lib.resolve(jar.getFileName()));
        }
        FlinkSession session =
                new FlinkSession(directory, lib, common, perTaskManager, freePort(), freePort());
        try {
            for (int index = 0; index < taskManagers; index++) {
                session.taskManagers.add(session.startTaskManager(index));
            }
            session.awaitTaskManagers(taskManagers, Duration.ofSeconds(120));
        } catch (Exception | Error e) {
            session.close();
            throw e;
        }
        return session;
    }

    /** The jars of Flink's lib/ that Maven assembled for these tests. */
    static List<Path> flinkLib() throws IOException {
        try (Stream<Path> jars =
                Files.list(Path.of(System.getProperty("rhino.deployment.flink-lib")))) {
            return jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
    }

    private Configuration baseConfig() {
        Configuration config = new Configuration();
        config.setString("jobmanager.rpc.address", "127.0.0.1");
        config.setString("jobmanager.rpc.port", String.valueOf(rpcPort));
        config.setString("jobmanager.memory.process.size", "1024m");
        config.setString("taskmanager.memory.process.size", "1600m");
        // a killed TaskManager is declared lost within seconds, not Flink's default 50 s
        config.setString("heartbeat.interval", "1000");
        config.setString("heartbeat.timeout", "6000");
        // a loaded machine may need more than the default 10 s to start the RPC system
        config.setString("pekko.startup-timeout", "60 s");
        config.addAll(common);
        return config;
    }

    static String taskManagerHost(int index) {
        return "127.0.0." + (index + 2);
    }

    private FlinkProcess startTaskManager(int index) throws IOException {
        String name = "taskmanager-" + index;
        Path home = directory.resolve(name);
        Files.createDirectories(home.resolve("tmp"));
        Configuration config = baseConfig();
        config.setString("taskmanager.host", taskManagerHost(index));
        config.setString("taskmanager.bind-host", taskManagerHost(index));
        config.setString("taskmanager.resource-id", name);
        config.setString("io.tmp.dirs", home.resolve("tmp").toString());
        perTaskManager.accept(index, config);
        TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(config);
        return FlinkProcess.start(
                name,
                home,
                lib,
                "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                config,
                split(ProcessMemoryUtils.generateJvmParametersStr(spec)),
                split(TaskExecutorProcessUtils.generateDynamicConfigsStr(spec)));
    }

    void awaitTaskManagers(int expected, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        int registered = -1;
        while (System.nanoTime() < deadline) {
            if (!jobManager.isAlive()) {
                throw new IllegalStateException("The JobManager died; see " + jobManager.log());
            }
            try {
                registered = rest.get("/taskmanagers").path("taskmanagers").size();
                if (registered == expected) {
                    return;
                }
            } catch (IOException notUpYet) {
                // the REST endpoint is still starting
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(
                expected
                        + " TaskManagers expected, "
                        + registered
                        + " registered; see "
                        + directory);
    }

    FlinkRest rest() {
        return rest;
    }

    FlinkProcess jobManager() {
        return jobManager;
    }

    List<FlinkProcess> taskManagers() {
        return taskManagers;
    }

    /** The index of the TaskManager on {@code address}. */
    int taskManagerAt(String address) {
        for (int index = 0; index < taskManagers.size(); index++) {
            if (taskManagerHost(index).equals(address)) {
                return index;
            }
        }
        throw new IllegalArgumentException("no TaskManager on " + address);
    }

    /** The live processes: the JobManager and every TaskManager not killed. */
    List<FlinkProcess> liveProcesses() {
        List<FlinkProcess> live = new ArrayList<>();
        if (jobManager.isAlive()) {
            live.add(jobManager);
        }
        taskManagers.stream().filter(FlinkProcess::isAlive).forEach(live::add);
        return live;
    }

    Path directory() {
        return directory;
    }

    @Override
    public void close() throws InterruptedException {
        for (FlinkProcess taskManager : taskManagers) {
            taskManager.close();
        }
        jobManager.close();
    }

    private static List<String> split(String options) {
        return Arrays.stream(options.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
    }

    /** A port for a process of the session to bind, outside the ephemeral range. */
    static int freePort() throws IOException {
        return StablePorts.next();
    }

    /** Writes {@code config} as a Flink configuration directory's config.yaml. */
    static void writeConfig(Path conf, Configuration config) throws IOException {
        Files.createDirectories(conf);
        Files.write(
                conf.resolve(GlobalConfiguration.FLINK_CONF_FILENAME),
                ConfigurationUtils.convertConfigToWritableLines(config, false));
    }
}
