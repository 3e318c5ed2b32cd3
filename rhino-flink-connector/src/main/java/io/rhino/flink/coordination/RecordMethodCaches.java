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

package io.rhino.flink.coordination;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.runtime.ObjectMethods;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves Java 17's references to the last records' classes off Rhino's records.
 *
 * <p>Java 17 caches, in static method handles that every record's {@code equals}, {@code hashCode}
 * and {@code toString} share, the last adaptation each one made, whose type names the record's
 * class and its field types (JDK-8078641, fixed in Java 18). After a job whose Rhino records were
 * the last ones linked, those statics keep the job's class loader alive when Rhino came in the job
 * jar. Linking the three methods once for a JDK class replaces the cached adaptations; it costs
 * microseconds and does nothing on Java 18 or later, which needs nothing.
 */
public final class RecordMethodCaches {

    private static final Logger LOG = LoggerFactory.getLogger(RecordMethodCaches.class);

    /** The name of the release hook {@link #releaseWith} registers. */
    private static final String HOOK = "rhino-record-method-caches";

    private RecordMethodCaches() {}

    /**
     * Releases the caches when Flink releases the task's user class loader (on a TaskManager, once
     * the job's last task there ended).
     */
    public static void releaseWith(RuntimeContext context) {
        context.registerUserCodeClassLoaderReleaseHookIfAbsent(HOOK, RecordMethodCaches::release);
    }

    static void release() {
        if (Runtime.version().feature() >= 18) {
            return;
        }
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            // String as if it were a record with one String component: a JDK class, no loader
            MethodHandle component =
                    lookup.findVirtual(
                            String.class, "toString", MethodType.methodType(String.class));
            link(
                    lookup,
                    "equals",
                    MethodType.methodType(boolean.class, String.class, Object.class),
                    component);
            link(lookup, "hashCode", MethodType.methodType(int.class, String.class), component);
            link(lookup, "toString", MethodType.methodType(String.class, String.class), component);
        } catch (Throwable t) {
            LOG.debug("Could not replace the JDK's cached record method adaptations", t);
        }
    }

    private static void link(
            MethodHandles.Lookup lookup, String method, MethodType type, MethodHandle component)
            throws Throwable {
        ObjectMethods.bootstrap(lookup, method, type, String.class, "value", component);
    }
}
