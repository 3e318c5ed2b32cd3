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

package io.rhino.flink.routing;

import io.rhino.flink.spec.UnsupportedJobShapeException;

/**
 * Refuses a Rhino task whose parallelism differs from the one the job was built with. The routing
 * table, the handover coordinators and the markers' router count are all derived from the built
 * parallelism of the router and of the keyed operator; a scheduler that changes it after the build
 * would make the first handover wait for routers that do not exist, or miss some that do.
 *
 * <p>Unlike the other refusals at task start this one lets Flink restart the job: the adaptive
 * scheduler runs a job at a lower parallelism while slots are missing, and a restart once they are
 * back deploys it at the built parallelism again.
 */
final class BuiltParallelism {

    private BuiltParallelism() {}

    static void check(String name, String role, int running, int built) {
        if (running == built) {
            return;
        }
        throw new UnsupportedJobShapeException(
                "Rhino keyed stream '"
                        + name
                        + "': its "
                        + role
                        + " runs with parallelism "
                        + running
                        + ", but the job was built with "
                        + built
                        + ". Rhino fixes the parallelism of its router and keyed operator when the"
                        + " job is built, and the scheduler changed it. Do not use"
                        + " 'scheduler-mode: reactive', the adaptive scheduler"
                        + " ('jobmanager.scheduler: adaptive') with fewer slots than the job needs"
                        + " or with rescaling, or 'pipeline.jobvertex-parallelism-overrides' for"
                        + " the vertices of a Rhino keyed stream. Deploy the parallelism you may"
                        + " need and move vnodes to standby subtasks instead.");
    }
}
