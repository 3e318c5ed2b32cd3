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

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code rhino} command: inspects and reconfigures the Rhino operators of running Flink jobs
 * through Rhino's REST API. Exit codes: 0 done, 1 a reconfiguration FAILED, 2 bad usage, 3 the
 * server refused the request, 4 the server could not be reached.
 */
@Command(
        name = "rhino",
        mixinStandardHelpOptions = true,
        version = "rhino 0.1.0",
        description =
                "Inspect and reconfigure the Rhino operators of running Flink jobs through the Rhino"
                        + " REST API.",
        subcommands = {
            ReadCommands.Jobs.class,
            ReadCommands.Operators.class,
            ReadCommands.Replication.class,
            ReadCommands.Status.class,
            ReconfigurationCommands.Move.class,
            ReconfigurationCommands.Rebalance.class,
            ReconfigurationCommands.Rescale.class,
            ReconfigurationCommands.Drain.class
        })
public final class RhinoCli {

    @Option(
            names = "--url",
            scope = ScopeType.INHERIT,
            defaultValue = "${env:RHINO_REST_URL:-http://127.0.0.1:8082}",
            description =
                    "The JobManager's Rhino REST address (env RHINO_REST_URL; default ${DEFAULT-VALUE}).")
    String url;

    @Option(
            names = "--token",
            scope = ScopeType.INHERIT,
            defaultValue = "${env:RHINO_REST_TOKEN}",
            description = "The bearer token of rhino.rest.auth-token (env RHINO_REST_TOKEN).")
    String token;

    @Option(
            names = "--json",
            scope = ScopeType.INHERIT,
            description = "Print the server's JSON instead of text.")
    boolean json;

    final PrintWriter out;

    private RhinoCli(PrintWriter out) {
        this.out = out;
    }

    RestClient client() {
        return new RestClient(url, token);
    }

    public static void main(String[] args) {
        System.exit(
                run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs the command line; returns the exit code. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine commandLine = new CommandLine(new RhinoCli(out));
        commandLine.setOut(out);
        commandLine.setErr(err);
        commandLine.setExecutionExceptionHandler(
                (exception, command, parsed) -> {
                    if (exception instanceof CliException cli) {
                        err.println("rhino: " + cli.getMessage());
                        err.flush();
                        return cli.exitCode();
                    }
                    throw exception;
                });
        int code = commandLine.execute(args);
        out.flush();
        return code;
    }
}
