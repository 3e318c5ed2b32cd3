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
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** Commands that only read: jobs, operators, replication, the status of a reconfiguration. */
final class ReadCommands {

    private ReadCommands() {}

    @Command(name = "jobs", description = "List the jobs with running Rhino operators.")
    static final class Jobs implements Callable<Integer> {
        @ParentCommand RhinoCli cli;

        @Override
        public Integer call() {
            JsonNode jobs = cli.client().get("/jobs");
            if (cli.json) {
                cli.out.println(jobs.toPrettyString());
                return 0;
            }
            for (JsonNode job : jobs.get("jobs")) {
                cli.out.println(job.get("id").asText() + "  " + job.get("operators"));
            }
            return 0;
        }
    }

    @Command(
            name = "operators",
            description =
                    "Show a job's Rhino operators: load and busy time of each subtask; owner,"
                            + " TaskManager and load of each vnode.")
    static final class Operators implements Callable<Integer> {
        @ParentCommand RhinoCli cli;

        @Parameters(index = "0", paramLabel = "JOB", description = "The Flink job id.")
        String job;

        @Override
        public Integer call() {
            JsonNode operators =
                    cli.client().get("/jobs/" + RestClient.segment(job) + "/operators");
            if (cli.json) {
                cli.out.println(operators.toPrettyString());
                return 0;
            }
            for (JsonNode operator : operators.get("operators")) {
                cli.out.printf(
                        Locale.ROOT,
                        "%s  parallelism %d  active %d  epoch %d  %s  imbalance %.2f%n",
                        operator.get("name").asText(),
                        operator.path("parallelism").asInt(),
                        operator.path("active-subtasks").asInt(),
                        operator.path("epoch").asLong(),
                        operator.path("state").asText(),
                        operator.path("load-imbalance").asDouble());
                cli.out.printf(
                        Locale.ROOT,
                        "  %-8s %-7s %-7s %-12s %-10s %s%n",
                        "subtask",
                        "active",
                        "vnodes",
                        "records/s",
                        "busy ms/s",
                        "taskmanager");
                for (JsonNode subtask : operator.path("subtasks")) {
                    cli.out.printf(
                            Locale.ROOT,
                            "  %-8d %-7s %-7d %-12.1f %-10s %s%n",
                            subtask.get("subtask").asInt(),
                            subtask.path("active").asBoolean() ? "yes" : "no",
                            subtask.path("vnodes").asInt(),
                            subtask.path("records-per-second").asDouble(),
                            subtask.path("busy-ms-per-second").isNumber()
                                    ? String.format(
                                            Locale.ROOT,
                                            "%.0f",
                                            subtask.get("busy-ms-per-second").asDouble())
                                    : "-",
                            subtask.path("taskmanager").asText("-"));
                }
                cli.out.printf(
                        Locale.ROOT,
                        "  %-6s %-6s %-12s %-12s %s%n",
                        "vnode",
                        "owner",
                        "records/s",
                        "state-bytes",
                        "taskmanager");
                for (JsonNode vnode : operator.path("vnodes")) {
                    cli.out.printf(
                            Locale.ROOT,
                            "  %-6d %-6d %-12.1f %-12d %s%n",
                            vnode.get("id").asInt(),
                            vnode.get("owner").asInt(),
                            vnode.get("records-per-second").asDouble(),
                            vnode.get("state-bytes").asLong(),
                            vnode.path("taskmanager").asText("-"));
                }
            }
            return 0;
        }
    }

    @Command(
            name = "replication",
            description =
                    "Show an operator's checkpoint replication: each subtask's chain, last"
                            + " replicated checkpoint, lag and bytes.")
    static final class Replication implements Callable<Integer> {
        @ParentCommand RhinoCli cli;

        @Parameters(index = "0", paramLabel = "JOB", description = "The Flink job id.")
        String job;

        @Parameters(index = "1", paramLabel = "OPERATOR", description = "The Rhino stream's name.")
        String operator;

        @Override
        public Integer call() {
            JsonNode replication =
                    cli.client()
                            .get(
                                    "/jobs/"
                                            + RestClient.segment(job)
                                            + "/operators/"
                                            + RestClient.segment(operator)
                                            + "/replication");
            if (cli.json) {
                cli.out.println(replication.toPrettyString());
                return 0;
            }
            cli.out.printf(
                    Locale.ROOT,
                    "mode %s  factor %d%n",
                    replication.path("mode").asText(),
                    replication.path("factor").asInt());
            if (!replication.path("full-stores").isEmpty()) {
                cli.out.printf(
                        Locale.ROOT,
                        "replica stores out of space, left out of the chains: %s%n",
                        replication.path("full-stores"));
            }
            cli.out.printf(
                    Locale.ROOT,
                    "  %-8s %-11s %-9s %-12s %-7s %s%n",
                    "subtask",
                    "checkpoint",
                    "lag-ms",
                    "bytes",
                    "failed",
                    "chain");
            for (JsonNode subtask : replication.path("subtasks")) {
                cli.out.printf(
                        Locale.ROOT,
                        "  %-8d %-11s %-9s %-12d %-7d %s%n",
                        subtask.get("subtask").asInt(),
                        subtask.path("last-replicated-checkpoint").asText("-"),
                        subtask.path("lag-ms").asText("-"),
                        subtask.path("bytes").asLong(),
                        subtask.path("failed-rounds").asLong(),
                        subtask.path("chain"));
            }
            return 0;
        }
    }

    @Command(name = "status", description = "Show a reconfiguration's status.")
    static final class Status implements Callable<Integer> {
        @ParentCommand RhinoCli cli;

        @Parameters(index = "0", paramLabel = "JOB")
        String job;

        @Parameters(index = "1", paramLabel = "REQUEST_ID")
        String requestId;

        @Override
        public Integer call() {
            JsonNode status =
                    cli.client()
                            .get(
                                    "/jobs/"
                                            + RestClient.segment(job)
                                            + "/reconfigurations/"
                                            + RestClient.segment(requestId));
            return StatusPrinter.print(cli, status);
        }
    }
}
