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

package io.rhino.benchmarks.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exit protocol of the benchmark mains: 0 when the run succeeded, 2 for bad flags (the message
 * says which), 1 for a failure (logged with its cause). The JVM always ends with that code, since
 * Flink and Kafka leave non-daemon threads behind.
 */
public final class BenchmarkMain {

    private static final Logger LOG = LoggerFactory.getLogger(BenchmarkMain.class);

    /** A main's work; returns whether the run succeeded. */
    @FunctionalInterface
    public interface Run {
        boolean succeeded() throws Exception;
    }

    private BenchmarkMain() {}

    /** Runs {@code run} and ends the JVM with its verdict; {@code what} names it in errors. */
    public static void exit(String what, Run run) {
        int exitCode;
        try {
            exitCode = run.succeeded() ? 0 : 1;
        } catch (IllegalArgumentException e) {
            LOG.error("{}", e.getMessage());
            exitCode = 2;
        } catch (Throwable t) {
            LOG.error("{} failed: {}", what, t.toString(), t);
            exitCode = 1;
        }
        System.exit(exitCode);
    }

    /** Writes a benchmark's CSV lines to {@code out}, creating its directory, and says where. */
    public static void writeCsv(Path out, List<String> lines) throws IOException {
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        Files.write(out, lines);
        System.out.println("Wrote " + out);
    }
}
