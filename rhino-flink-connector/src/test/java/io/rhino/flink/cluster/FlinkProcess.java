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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ConfigurationUtils;
import org.apache.flink.configuration.GlobalConfiguration;

/**
 * One Flink process (a JobManager or a TaskManager) in its own JVM: its configuration directory,
 * its log file and its working directory live under one directory. {@link #kill()} is a {@code kill
 * -9}: the process gets no chance to clean up, as when a machine dies.
 */
final class FlinkProcess implements AutoCloseable {

    private final String name;
    private final Path directory;
    private final Process process;

    private FlinkProcess(String name, Path directory, Process process) {
        this.name = name;
        this.directory = directory;
        this.process = process;
    }

    /**
     * Starts {@code mainClass} with the configuration written to {@code directory/conf/config.yaml}
     * and its log going to {@code directory/<name>.log}.
     */
    static FlinkProcess start(
            String name,
            Path directory,
            String mainClass,
            Configuration config,
            List<String> jvmOptions,
            List<String> arguments)
            throws IOException {
        return start(name, directory, List.of(), mainClass, config, jvmOptions, arguments);
    }

    /**
     * As above, the {@code java} command prefixed by {@code launcher} (e.g. {@code ip netns exec
     * <namespace>}, which runs it on a {@link NetworkBed} host and becomes the JVM itself: the
     * process's pid is the JVM's, and {@link #kill()} kills the JVM).
     */
    static FlinkProcess start(
            String name,
            Path directory,
            List<String> launcher,
            String mainClass,
            Configuration config,
            List<String> jvmOptions,
            List<String> arguments)
            throws IOException {
        Path conf = directory.resolve("conf");
        Files.createDirectories(conf);
        Files.write(
                conf.resolve(GlobalConfiguration.FLINK_CONF_FILENAME),
                ConfigurationUtils.convertConfigToWritableLines(config, false));
        List<String> withConfig = new ArrayList<>(List.of("--configDir", conf.toString()));
        withConfig.addAll(arguments);
        return startJava(name, directory, launcher, mainClass, jvmOptions, withConfig);
    }

    /**
     * Starts {@code mainClass} of the test class path in its own JVM (prefixed by {@code
     * launcher}), its log going to {@code directory/<name>.log}.
     */
    static FlinkProcess startJava(
            String name,
            Path directory,
            List<String> launcher,
            String mainClass,
            List<String> jvmOptions,
            List<String> arguments)
            throws IOException {
        Path conf = directory.resolve("conf");
        Files.createDirectories(conf);
        Path log4j = conf.resolve("log4j.properties");
        Files.writeString(log4j, LOG4J + debugLoggers());
        List<String> command = new ArrayList<>(launcher);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-Dlog.file=" + directory.resolve(name + ".log"));
        command.add("-Dlog4j.configurationFile=" + log4j.toUri());
        command.add("-cp");
        command.add(classPath());
        command.add(mainClass);
        command.addAll(arguments);
        Process process =
                new ProcessBuilder(command)
                        .directory(directory.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(directory.resolve(name + ".out").toFile())
                        .start();
        return new FlinkProcess(name, directory, process);
    }

    /** The test JVM's class path: Flink, Rhino and the test jobs' classes. */
    private static String classPath() {
        // Surefire and Failsafe may start the test JVM from a manifest-only jar.
        return System.getProperty(
                "surefire.test.class.path", System.getProperty("java.class.path"));
    }

    String name() {
        return name;
    }

    Path directory() {
        return directory;
    }

    Path log() {
        return directory.resolve(name + ".log");
    }

    boolean isAlive() {
        return process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** SIGKILL, then waits for the process to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Asks the process to stop (SIGTERM runs Flink's shutdown hooks), then kills it if needed. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            kill();
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ", " + (isAlive() ? "alive" : "dead") + ")";
    }

    /**
     * Loggers the processes log at DEBUG, from the comma-separated {@code
     * rhino.cluster.debug-loggers} (e.g. {@code io.rhino.flink.state.VnodeSnapshotter}): to look
     * inside a run without changing the code.
     */
    private static String debugLoggers() {
        StringBuilder loggers = new StringBuilder();
        int index = 0;
        for (String name : System.getProperty("rhino.cluster.debug-loggers", "").split(",")) {
            if (!name.isBlank()) {
                loggers.append("logger.debug")
                        .append(index)
                        .append(".name = ")
                        .append(name.strip())
                        .append("\nlogger.debug")
                        .append(index)
                        .append(".level = DEBUG\n");
                index++;
            }
        }
        return loggers.toString();
    }

    private static final String LOG4J =
            String.join(
                    "\n",
                    "rootLogger.level = INFO",
                    "rootLogger.appenderRef.file.ref = MainAppender",
                    "appender.main.name = MainAppender",
                    "appender.main.type = File",
                    "appender.main.append = true",
                    "appender.main.fileName = ${sys:log.file}",
                    "appender.main.layout.type = PatternLayout",
                    "appender.main.layout.pattern = %d{HH:mm:ss,SSS} %-5p %-60c %x - %m%n",
                    "logger.pekko.name = org.apache.pekko",
                    "logger.pekko.level = WARN",
                    "logger.netty.name = org.apache.flink.shaded.netty4",
                    "logger.netty.level = WARN",
                    "");
}
