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

package io.rhino.core.handover;

import java.util.List;

/**
 * Thrown when a {@link HandoverPlan} cannot be applied to a routing table. The message lists every
 * problem found and what to do about it; nothing has been applied.
 */
public final class InvalidHandoverException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    /**
     * Creates the exception.
     *
     * @param problems one human-readable description per problem, at least one
     */
    public InvalidHandoverException(List<String> problems) {
        super(format(problems));
        this.problems = List.copyOf(problems);
    }

    /** Returns the individual problems, in plan order. */
    public List<String> problems() {
        return problems;
    }

    private static String format(List<String> problems) {
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("problems: [] (expected: at least one problem)");
        }
        if (problems.size() == 1) {
            return "invalid handover plan: " + problems.get(0);
        }
        return "invalid handover plan, "
                + problems.size()
                + " problems: "
                + String.join("; ", problems);
    }
}
