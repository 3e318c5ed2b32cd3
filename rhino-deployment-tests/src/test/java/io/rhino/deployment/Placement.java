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

package io.rhino.deployment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Where Rhino's classes come from on the session cluster. */
enum Placement {
    /** rhino-flink-dist in Flink's lib/, the job jar holds only the job. */
    LIB,
    /**
     * Nothing of Rhino on the cluster; the job jar carries the thin connector and its libraries.
     */
    JOB_JAR;

    /** The cluster's lib/: Flink's jars, and the distribution jar in {@link #LIB}. */
    List<Path> clusterLib() throws IOException {
        List<Path> jars = new ArrayList<>(FlinkSession.flinkLib());
        if (this == LIB) {
            jars.add(Path.of(System.getProperty("rhino.deployment.dist-jar")));
        }
        return jars;
    }

    /** The job jar uploaded to the cluster. */
    Path jobJar() {
        return Path.of(
                System.getProperty(
                        this == LIB
                                ? "rhino.deployment.job-jar"
                                : "rhino.deployment.job-with-rhino-jar"));
    }
}
