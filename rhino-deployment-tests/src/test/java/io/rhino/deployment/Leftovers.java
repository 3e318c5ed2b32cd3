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

import io.rhino.replication.testing.ChangingFileTree;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** What a Rhino job may leave behind in a Flink process once it is gone. */
final class Leftovers {

    private Leftovers() {}

    /**
     * The threads of {@code process} that run Rhino's code: named by Rhino ({@code rhino-...}), or
     * with Rhino's classes or an unrelocated Netty (a job jar's) on their stack.
     */
    static List<String> rhinoThreads(FlinkProcess process) throws Exception {
        List<String> threads = new ArrayList<>();
        for (String thread : process.jcmd("Thread.print").split("\n\n")) {
            String trimmed = thread.strip();
            if (trimmed.startsWith("\"")
                    && (trimmed.startsWith("\"rhino-")
                            || trimmed.contains("io.rhino.")
                            || trimmed.contains("at io.netty."))) {
                threads.add(trimmed.lines().limit(12).reduce((a, b) -> a + "\n" + b).orElse(""));
            }
        }
        return threads;
    }

    /**
     * The user-code class loaders of {@code process} that survive a full GC: Flink's child-first
     * (or parent-first) loaders that defined a job's classes, and any of Flink's wrappers around
     * them that still holds classes. None, once every job that ran there left it and nothing holds
     * on to its classes. (A wrapper Flink closed holds no classes and no loader any more.)
     */
    static List<String> userClassLoaders(FlinkProcess process) throws Exception {
        process.jcmd("GC.run");
        return Arrays.stream(process.jcmd("VM.classloader_stats").split("\n"))
                .filter(
                        line ->
                                line.contains("ChildFirstClassLoader")
                                        || line.contains("ParentFirstClassLoader")
                                        || (line.contains("FlinkUserCodeClassLoaders")
                                                && classes(line) > 0))
                .toList();
    }

    /**
     * Whether {@code className} names Flink's safety net around a job's user-code class loader (the
     * loader a task and the threads it starts get as context class loader).
     */
    static boolean isSafetyNetClassLoader(String className) {
        return className.endsWith("SafetyNetWrapperClassLoader");
    }

    /** Whether {@code className} names one of Flink's user-code class loaders. */
    static boolean isUserClassLoader(String className) {
        return className.endsWith("ChildFirstClassLoader")
                || className.endsWith("ParentFirstClassLoader");
    }

    /** The Classes column of a line of {@code VM.classloader_stats}. */
    private static long classes(String statsLine) {
        String[] columns = statsLine.trim().split("\\s+");
        return columns.length > 3 && columns[3].matches("\\d+") ? Long.parseLong(columns[3]) : 0;
    }

    /**
     * The classes of Rhino (not of the job itself) that a user-code class loader of {@code process}
     * still holds: with Rhino in the job jar, what keeps the job's class loader alive after the job
     * left.
     */
    static List<String> rhinoClassesOfUserLoaders(FlinkProcess process) throws Exception {
        List<String> classes = new ArrayList<>();
        boolean inUserLoader = false;
        for (String line : process.jcmd("VM.classloaders", "show-classes").split("\n")) {
            if (line.contains("+--")) {
                inUserLoader =
                        line.contains("FlinkUserCodeClassLoaders")
                                || line.contains("ChildFirstClassLoader")
                                || line.contains("ParentFirstClassLoader");
            } else if (inUserLoader
                    && line.contains("io.rhino.")
                    && !line.contains("io.rhino.deployment.")) {
                classes.add(line.strip());
            }
        }
        return classes;
    }

    /** Whether something accepts connections on {@code hostAndPort}. */
    static boolean listening(String hostAndPort) throws IOException {
        int colon = hostAndPort.lastIndexOf(':');
        try (Socket socket = new Socket()) {
            socket.connect(
                    new InetSocketAddress(
                            hostAndPort.substring(0, colon),
                            Integer.parseInt(hostAndPort.substring(colon + 1))),
                    2_000);
            return true;
        } catch (ConnectException refused) {
            return false;
        }
    }

    /**
     * The files under {@code directory}, its subdirectories' included. The cancelled jobs' replica
     * stores may still be going while this looks: what vanishes meanwhile is not a leftover.
     */
    static List<Path> files(Path directory) throws IOException {
        return ChangingFileTree.regularFiles(directory).stream().sorted().toList();
    }
}
