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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** Commands that start a reconfiguration: move, rebalance, rescale, drain. */
final class ReconfigurationCommands {

    private ReconfigurationCommands() {}

    /** Posts the request, prints its id and, with --wait, polls its status until it ends. */
    abstract static class Reconfiguration implements Callable<Integer> {
        @ParentCommand RhinoCli cli;

        @Parameters(index = "0", paramLabel = "JOB", description = "The Flink job id.")
        String job;

        @Option(names = "--wait", description = "Poll the status until it ended.")
        boolean await;

        @Option(
                names = "--timeout",
                defaultValue = "PT10M",
                description = "How long --wait waits (ISO-8601, default ${DEFAULT-VALUE}).")
        Duration timeout;

        @Option(
                names = "--request-id",
                description = "Your own id: sending the same request again is then a no-op.")
        String requestId;

        abstract String path();

        abstract ObjectNode body();

        String jobPath() {
            return "/jobs/" + RestClient.segment(job);
        }

        @Override
        public Integer call() throws InterruptedException {
            ObjectNode body = body();
            if (requestId != null) {
                body.put("request-id", requestId);
            }
            RestClient client = cli.client();
            JsonNode accepted = client.post(path(), body);
            String id = accepted.get("request-id").asText();
            if (!await) {
                cli.out.println(cli.json ? accepted.toPrettyString() : "accepted: request " + id);
                return 0;
            }
            String statusPath = jobPath() + "/reconfigurations/" + RestClient.segment(id);
            long deadline = System.nanoTime() + timeout.toNanos();
            JsonNode status = client.get(statusPath);
            while (status.at("/status/id").asText().equals("IN_PROGRESS")) {
                if (System.nanoTime() > deadline) {
                    throw new CliException(
                            CliException.FAILED,
                            "request " + id + " still IN_PROGRESS after " + timeout);
                }
                Thread.sleep(250);
                status = client.get(statusPath);
            }
            return StatusPrinter.print(cli, status);
        }
    }

    /** The subcommands on one operator. */
    abstract static class OnOperator extends Reconfiguration {
        @Parameters(index = "1", paramLabel = "OPERATOR", description = "The Rhino operator.")
        String operator;

        String operatorPath() {
            return jobPath() + "/operators/" + RestClient.segment(operator);
        }
    }

    @Command(name = "move", description = "Move a vnode to another subtask.")
    static final class Move extends OnOperator {
        @Parameters(index = "2", paramLabel = "VNODE")
        int vnode;

        @Parameters(index = "3", paramLabel = "TO", description = "The target subtask.")
        int to;

        @Override
        String path() {
            return operatorPath() + "/handovers";
        }

        @Override
        ObjectNode body() {
            ObjectNode body = RestClient.MAPPER.createObjectNode();
            body.putArray("moves").addObject().put("vnode", vnode).put("to", to);
            return body;
        }
    }

    @Command(
            name = "rebalance",
            description = "Move the fewest vnodes that bring max/mean subtask load under a ratio.")
    static final class Rebalance extends OnOperator {
        @Option(
                names = "--max-imbalance",
                description =
                        "The accepted max/mean ratio (default: rhino.balancer.max-imbalance).")
        Double maxImbalance;

        @Override
        String path() {
            return operatorPath() + "/rebalance";
        }

        @Override
        ObjectNode body() {
            ObjectNode body = RestClient.MAPPER.createObjectNode();
            if (maxImbalance != null) {
                body.put("max-imbalance", maxImbalance);
            }
            return body;
        }
    }

    @Command(
            name = "rescale",
            description = {
                "Spread the vnodes over N active subtasks: live within the deployed parallelism;",
                "past it, with --allow-restart, through a restart by Flink's adaptive scheduler."
            })
    static final class Rescale extends OnOperator {
        @Parameters(index = "2", paramLabel = "N")
        int activeSubtasks;

        @Option(
                names = "--allow-restart",
                description =
                        "Past the deployed parallelism, ask Flink's adaptive scheduler to restart"
                                + " the job at N (needs rhino.rescale.flink-rest-address).")
        boolean allowRestart;

        @Override
        String path() {
            return operatorPath() + "/rescale";
        }

        @Override
        ObjectNode body() {
            ObjectNode body =
                    RestClient.MAPPER.createObjectNode().put("active-subtasks", activeSubtasks);
            if (allowRestart) {
                body.put("allow-restart", true);
            }
            return body;
        }
    }

    @Command(
            name = "drain",
            description = "Move every vnode of the job off a TaskManager (see 'operators').")
    static final class Drain extends Reconfiguration {
        @Parameters(index = "1", paramLabel = "TASKMANAGER")
        String taskManager;

        @Override
        String path() {
            return jobPath() + "/taskmanagers/" + RestClient.segment(taskManager) + "/drain";
        }

        @Override
        ObjectNode body() {
            return RestClient.MAPPER.createObjectNode();
        }
    }
}
