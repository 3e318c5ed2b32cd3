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

import java.util.Arrays;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets go of a job's class loader in the threads that inherited it.
 *
 * <p>A thread takes its context class loader from the thread that starts it. Flink's own long-lived
 * threads that a task thread starts, such as the network client's event loop threads (started when
 * a task opens its first remote input channel), therefore keep the job's user-code class loader as
 * theirs for the rest of the TaskManager's life. Flink clears that loader's inner loader when it
 * releases the job, but the JVM recorded a dependency of the wrapper on the inner loader when
 * classes were loaded through it, and that keeps the job's classes in memory as long as the thread
 * lives; a heap dump does not show that reference. When Flink releases the job's class loader,
 * every thread still holding it as context class loader gets the loader's parent instead: a
 * released loader cannot load anything any more, so nothing that runs on those threads can have
 * needed it.
 */
public final class InheritedContextLoaders {

    private static final Logger LOG = LoggerFactory.getLogger(InheritedContextLoaders.class);

    /** The name of the release hook {@link #releaseWith} registers. */
    private static final String HOOK = "rhino-inherited-context-loaders";

    private InheritedContextLoaders() {}

    /**
     * Hands the threads that inherited the task's user-code class loader its parent when Flink
     * releases it (on a TaskManager, once the job's last task there ended).
     */
    public static void releaseWith(RuntimeContext context) {
        ClassLoader jobs = context.getUserCodeClassLoader();
        context.registerUserCodeClassLoaderReleaseHookIfAbsent(HOOK, () -> release(jobs));
    }

    /**
     * The number of threads whose context class loader was {@code released}, none where it is a
     * loader Flink's own classes come from.
     */
    static int release(ClassLoader released) {
        if (released == null || sharedWithFlink(released)) {
            return 0;
        }
        int replaced = 0;
        for (Thread thread : liveThreads()) {
            if (thread.getContextClassLoader() == released) {
                thread.setContextClassLoader(released.getParent());
                replaced++;
                LOG.debug(
                        "Thread '{}' no longer holds a released job's class loader as its context"
                                + " class loader",
                        thread.getName());
            }
        }
        return replaced;
    }

    /**
     * Whether Flink's own classes come from {@code loader} or a loader below it. Flink runs a job
     * that brought no jar on the system class loader, which it never closes and which most threads
     * of the process have as context class loader: releasing such a job changes nothing.
     */
    private static boolean sharedWithFlink(ClassLoader loader) {
        for (ClassLoader flinks = RuntimeContext.class.getClassLoader();
                flinks != null;
                flinks = flinks.getParent()) {
            if (flinks == loader) {
                return true;
            }
        }
        return loader == ClassLoader.getSystemClassLoader();
    }

    private static Thread[] liveThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() * 2 + 16];
        int count = root.enumerate(threads, true);
        return Arrays.copyOf(threads, count);
    }
}
