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

package io.rhino.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** The CLI's own errors; its calls to a real server are tested with the REST API. */
class RhinoCliTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return RhinoCli.run(args, new PrintWriter(out), new PrintWriter(err));
    }

    @Test
    void anUnreachableServerExitsWithFourAndSaysWhatToCheck() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort(); // closed again: nothing listens there
        }
        assertThat(run("--url", "http://127.0.0.1:" + port, "jobs")).isEqualTo(4);
        assertThat(err.toString()).contains("Cannot connect").contains("rhino.rest.port");
    }

    @Test
    void badUsageExitsWithTwoAndPrintsTheUsage() {
        assertThat(run("rescale", "job-only")).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required parameter");
        assertThat(run("move", "job", "op", "not-a-number", "1")).isEqualTo(2);
    }

    @Test
    void rescaleAsksForARestartOnlyWhenAllowed() {
        ReconfigurationCommands.Rescale live = new ReconfigurationCommands.Rescale();
        picocli.CommandLine.populateCommand(live, "job", "op", "6");
        assertThat(live.body().toString()).isEqualTo("{\"active-subtasks\":6}");
        ReconfigurationCommands.Rescale restart = new ReconfigurationCommands.Rescale();
        picocli.CommandLine.populateCommand(restart, "job", "op", "6", "--allow-restart");
        assertThat(restart.body().toString())
                .isEqualTo("{\"active-subtasks\":6,\"allow-restart\":true}");
    }
}
