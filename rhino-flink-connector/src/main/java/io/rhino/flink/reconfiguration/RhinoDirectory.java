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

package io.rhino.flink.reconfiguration;

import io.rhino.handover.operation.Reconfiguration;
import io.rhino.handover.operation.Reconfigurations;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The running Rhino operators of this JobManager process and their reconfigurations. */
public interface RhinoDirectory {

    /** Every running Rhino operator, of every job. */
    List<OperatorView> operators();

    /** The reconfigurations of every job in this process. */
    Reconfigurations reconfigurations();

    /** The running Rhino operators of a job, by name order. */
    default List<OperatorView> operatorsOf(String jobId) {
        return operators().stream()
                .filter(o -> o.jobId().equals(jobId))
                .sorted(java.util.Comparator.comparing(OperatorView::name))
                .toList();
    }

    /**
     * Returns once the start of {@code reconfiguration} is recorded in its job's request journal,
     * or after {@code timeout}; at once where the job keeps none (see {@link RequestJournals}).
     */
    default void awaitRecorded(Reconfiguration reconfiguration, Duration timeout) {}

    /** A running Rhino operator. */
    default Optional<OperatorView> operator(String jobId, String name) {
        return operatorsOf(jobId).stream().filter(o -> o.name().equals(name)).findFirst();
    }
}
