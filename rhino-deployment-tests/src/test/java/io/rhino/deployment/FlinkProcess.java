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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;

/**
 * One Flink process in its own JVM, as {@code bin/jobmanager.sh} or {@code bin/taskmanager.sh}
 * starts it: the class path is the jars of {@code lib/} (Flink's scripts list them sorted), the
 * configuration directory and the log file are its own. {@link #kill()} is a {@code kill -9}.
 */
final class FlinkProcess implements AutoCloseable {

    /** What a Flink 2.2 distribution's config.yaml opens to Flink on Java 17. */
    private static final List<String> JAVA_17_OPTIONS =
            Stream.of(
                            "java.base/java.lang",
                            "java.base/java.util",
                            "java.base/java.io",
                            "java.base/java.nio",
                            "java.base/sun.nio.ch",
                            "java.base/java.lang.reflect",
                            "java.base/java.net",
                            "java.base/java.text",
                            "java.base/java.time",
                            "java.base/java.util.concurrent")
                    .map(module -> "--add-opens=" + module + "=ALL-UNNAMED")
                    .toList();

    private final String name;
    private final Path directory;
    private final Process process;

    private FlinkProcess(String name, Path directory, Process process) {
        this.name = name;
        this.directory = directory;
        this.process = process;
    }

    static FlinkProcess start(
            String name,
            Path directory,
            Path lib,
            String mainClass,
            Configuration config,
            List<String> jvmOptions,
            List<String> arguments)
            throws IOException {
        Path conf = directory.resolve("conf");
        FlinkSession.writeConfig(conf, config);
        Path log4j = conf.resolve("log4j.properties");
        Files.writeString(log4j, LOG4J);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(JAVA_17_OPTIONS);
        // every GC clears soft references, as memory pressure would: a class loader that only a
        // JDK cache holds softly (ObjectStreamClass's) goes at the leak check's GC, not later
        command.add("-XX:SoftRefLRUPolicyMSPerMB=0");
        command.add("-Dlog.file=" + directory.resolve(name + ".log"));
        command.add("-Dlog4j.configurationFile=" + log4j.toUri());
        command.add("-cp");
        command.add(classPath(lib));
        command.add(mainClass);
        command.add("--configDir");
        command.add(conf.toString());
        command.addAll(arguments);
        Process process =
                new ProcessBuilder(command)
                        .directory(directory.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(directory.resolve(name + ".out").toFile())
                        .start();
        return new FlinkProcess(name, directory, process);
    }

    /** The jars of {@code lib/}, and only those. */
    private static String classPath(Path lib) throws IOException {
        try (Stream<Path> jars = Files.list(lib)) {
            return jars.filter(p -> p.toString().endsWith(".jar"))
                    .sorted()
                    .map(Path::toString)
                    .collect(Collectors.joining(":"));
        }
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

    /**
     * Runs {@code jcmd <pid> <command>} (a thread dump, a GC, the class loaders) and returns its
     * output.
     */
    String jcmd(String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>();
        line.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        line.add(String.valueOf(pid()));
        line.addAll(List.of(command));
        Process jcmd = new ProcessBuilder(line).redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!jcmd.waitFor(60, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
            throw new IOException("jcmd " + line + " failed: " + out);
        }
        return out;
    }

    /** SIGKILL, then waits for the process to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM (Flink's shutdown hooks run), then SIGKILL if needed. */
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
