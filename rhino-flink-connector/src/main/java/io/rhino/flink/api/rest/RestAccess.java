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

package io.rhino.flink.api.rest;

import io.rhino.flink.reconfiguration.OperatorView;
import io.rhino.flink.reconfiguration.RhinoDirectory;
import io.rhino.handover.operation.Reconfiguration;
import io.rhino.handover.operation.Reconfigurations;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Who may see and control which job. One server serves every job of its JobManager process, but
 * each job keeps its own REST settings: a job with {@code rhino.rest.enabled: false} is not served
 * at all (as if it did not run), and a job with {@code rhino.rest.auth-token} is reachable only
 * with that token, whatever other jobs set.
 */
final class RestAccess {

    private final RhinoDirectory served;

    RestAccess(RhinoDirectory directory) {
        this.served = servedOnly(directory);
    }

    /** The directory of the operators served over REST: the only ones the API sees. */
    RhinoDirectory served() {
        return served;
    }

    /** Whether a request with {@code token} may see and control {@code jobId}. */
    boolean admits(String jobId, Optional<String> token) {
        return served.operatorsOf(jobId).stream().allMatch(operator -> admits(operator, token));
    }

    /**
     * Refuses a request about a served job it has no token for; a job that is not served is left to
     * the resource, which answers 404.
     *
     * @throws RestException 401
     */
    void checkJob(String jobId, Optional<String> token) {
        if (!admits(jobId, token)) {
            throw BearerToken.unauthorized(
                    (token.isPresent() ? "Wrong token" : "Missing token")
                            + " for job "
                            + jobId
                            + ": send 'Authorization: Bearer <token>' with the job's"
                            + " rhino.rest.auth-token");
        }
    }

    private static boolean admits(OperatorView operator, Optional<String> token) {
        return operator.restToken()
                .map(expected -> BearerToken.matches(expected, token))
                .orElse(true);
    }

    private static RhinoDirectory servedOnly(RhinoDirectory directory) {
        return new RhinoDirectory() {
            @Override
            public List<OperatorView> operators() {
                return directory.operators().stream().filter(OperatorView::servedOverRest).toList();
            }

            @Override
            public Reconfigurations reconfigurations() {
                return directory.reconfigurations();
            }

            @Override
            public void awaitRecorded(Reconfiguration reconfiguration, Duration timeout) {
                directory.awaitRecorded(reconfiguration, timeout);
            }
        };
    }
}
