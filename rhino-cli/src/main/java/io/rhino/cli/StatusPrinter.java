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

/** Prints a reconfiguration's status and maps it to an exit code. */
final class StatusPrinter {

    private StatusPrinter() {}

    /** 0 unless the reconfiguration FAILED. */
    static int print(RhinoCli cli, JsonNode status) {
        String state = status.at("/status/id").asText();
        if (cli.json) {
            cli.out.println(status.toPrettyString());
        } else {
            JsonNode operation = status.get("operation");
            cli.out.printf(
                    Locale.ROOT,
                    "%s %s: %s%n",
                    operation.get("kind").asText(),
                    operation.get("request-id").asText(),
                    state);
            for (JsonNode handover : operation.get("handovers")) {
                cli.out.printf(
                        Locale.ROOT,
                        "  %s: %d moves, %s%s%s%n",
                        handover.get("operator").asText(),
                        handover.get("moves").size(),
                        handover.get("status").asText(),
                        handover.has("total-ms")
                                ? " in " + handover.get("total-ms").asLong() + " ms"
                                : "",
                        handover.has("failure")
                                ? " (" + handover.get("failure").asText() + ")"
                                : "");
            }
        }
        return state.equals("FAILED") ? CliException.FAILED : 0;
    }
}
