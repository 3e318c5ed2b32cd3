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

package io.rhino.flink.replication;

import org.apache.flink.runtime.execution.Environment;

/** Where this copy of Rhino's classes was loaded from. */
final class RhinoClasses {

    private RhinoClasses() {}

    /**
     * Whether Rhino's classes are a job's own: loaded from its jar by its user-code class loader,
     * not with Flink's from the class path (Flink's lib/). Then each job has its own copy of every
     * static registry, so its own replication service on each TaskManager, which must end with the
     * job's class loader.
     */
    static boolean areTheJobsOwn() {
        return RhinoClasses.class.getClassLoader() != Environment.class.getClassLoader();
    }
}
