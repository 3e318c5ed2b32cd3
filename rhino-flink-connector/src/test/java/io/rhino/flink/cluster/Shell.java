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
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the network bed's commands ({@code ip}, {@code tc}) and reads their output. */
final class Shell {

    /** A finished command: its exit code and its output, stderr merged in. */
    record Result(int code, String output) {
        boolean ok() {
            return code == 0;
        }
    }

    private Shell() {}

    /** Runs {@code command}; a command that cannot start answers code 127 with the reason. */
    static Result tryRun(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Result(124, String.join(" ", command) + ": timed out");
            }
            return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Result(127, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(130, "interrupted");
        }
    }

    static Result tryRun(String... command) {
        return tryRun(List.of(command));
    }

    /** Runs {@code command} and fails with its output unless it exits with 0. */
    static String run(String... command) throws IOException {
        Result result = tryRun(command);
        if (!result.ok()) {
            throw new IOException(
                    String.join(" ", command)
                            + " exited with "
                            + result.code()
                            + ": "
                            + result.output().strip());
        }
        return result.output();
    }
}
