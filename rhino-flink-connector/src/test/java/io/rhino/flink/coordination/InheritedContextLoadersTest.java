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

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.net.URL;
import java.util.concurrent.CountDownLatch;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.util.FlinkUserCodeClassLoaders;
import org.apache.flink.util.MutableURLClassLoader;
import org.junit.jupiter.api.Test;

/**
 * A thread started while a job's class loader was the context class loader (as Flink's network
 * client threads are, by the first task that opens a remote channel) keeps the job's classes in
 * memory after Flink released the loader, until the release hook hands the thread another loader.
 * With Flink's own user-code class loaders and a real garbage collection.
 */
class InheritedContextLoadersTest {

    /** Loaded again, child-first, by a job's class loader of its own. */
    public static final class JobClass {}

    @Test
    void aThreadThatInheritedAReleasedJobLoaderNoLongerKeepsTheJobsClasses() throws Exception {
        ClassLoader parent = InheritedContextLoadersTest.class.getClassLoader();
        CountDownLatch done = new CountDownLatch(1);
        Thread unrelated = new Thread(() -> await(done), "unrelated");
        unrelated.setContextClassLoader(parent);
        unrelated.start();
        Thread[] inherited = new Thread[1];
        WeakReference<ClassLoader> definingLoader = runAndReleaseAJob(parent, inherited, done);
        try {
            // only the thread refers to the released loader now
            collectGarbage(definingLoader);
            assertThat(definingLoader.get())
                    .as("the job's classes while a thread inherited its released loader")
                    .isNotNull();

            assertThat(InheritedContextLoaders.release(inherited[0].getContextClassLoader()))
                    .isEqualTo(1);

            assertThat(inherited[0].getContextClassLoader()).isSameAs(parent);
            assertThat(unrelated.getContextClassLoader()).isSameAs(parent);
            collectGarbage(definingLoader);
            assertThat(definingLoader.get()).as("the job's classes after the release").isNull();
        } finally {
            done.countDown();
            inherited[0].join();
            unrelated.join();
        }
    }

    @Test
    void aJobWithoutJarsRunsOnTheSystemClassLoaderWhichNoThreadGivesUp() throws Exception {
        // Flink hands such a job the system class loader and runs its release hooks all the same
        ClassLoader system = ClassLoader.getSystemClassLoader();
        CountDownLatch done = new CountDownLatch(1);
        Thread sharing = new Thread(() -> await(done), "sharing the system class loader");
        sharing.setContextClassLoader(system);
        sharing.start();
        try {
            assertThat(InheritedContextLoaders.release(system)).isZero();
            assertThat(InheritedContextLoaders.release(RuntimeContext.class.getClassLoader()))
                    .isZero();
            assertThat(sharing.getContextClassLoader()).isSameAs(system);
        } finally {
            done.countDown();
            sharing.join();
        }
    }

    /**
     * What a TaskManager does with a job: Flink's safety net around a child-first loader, a class
     * of the job loaded through it, a thread started while it is the context class loader (into
     * {@code inherited}), then Flink's release, which drops the safety net's inner loader. Returns
     * the loader that defined the job's class.
     */
    private static WeakReference<ClassLoader> runAndReleaseAJob(
            ClassLoader parent, Thread[] inherited, CountDownLatch done) throws Exception {
        URL classes = JobClass.class.getProtectionDomain().getCodeSource().getLocation();
        MutableURLClassLoader jobLoader =
                FlinkUserCodeClassLoaders.childFirst(
                        new URL[] {classes}, parent, new String[0], error -> {}, true);
        WeakReference<ClassLoader> definingLoader = loadThrough(jobLoader);
        inherited[0] = startWithContextLoader(jobLoader, done);
        jobLoader.close();
        return definingLoader;
    }

    /**
     * Loads {@link JobClass} through {@code jobLoader} as the JVM does for a task (the loader as
     * the initiating loader) and returns the loader that defined it.
     */
    private static WeakReference<ClassLoader> loadThrough(ClassLoader jobLoader) throws Exception {
        Class<?> type = Class.forName(JobClass.class.getName(), true, jobLoader);
        assertThat(type.getClassLoader())
                .isNotSameAs(jobLoader)
                .isNotSameAs(JobClass.class.getClassLoader());
        return new WeakReference<>(type.getClassLoader());
    }

    /** A thread started by a thread whose context class loader was {@code loader}. */
    private static Thread startWithContextLoader(ClassLoader loader, CountDownLatch done) {
        Thread starter = Thread.currentThread();
        ClassLoader own = starter.getContextClassLoader();
        starter.setContextClassLoader(loader);
        try {
            Thread thread = new Thread(() -> await(done), "inherited");
            thread.start();
            return thread;
        } finally {
            starter.setContextClassLoader(own);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void collectGarbage(WeakReference<?> until) throws InterruptedException {
        for (int i = 0; i < 20 && until.get() != null; i++) {
            System.gc();
            Thread.sleep(50);
        }
    }
}
