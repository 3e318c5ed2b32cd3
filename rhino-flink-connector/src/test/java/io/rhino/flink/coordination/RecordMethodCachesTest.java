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
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/** A class loader whose records were the last ones linked goes once the caches are released. */
class RecordMethodCachesTest {

    /** Loaded again by a loader of its own: a job's record. */
    public record JobRecord(JobRecord next, String name) {}

    @Test
    @EnabledForJreRange(max = JRE.JAVA_17)
    void aJobsRecordsNoLongerKeepItsLoaderOnceReleased() throws Exception {
        WeakReference<ClassLoader> loader = linkRecordMethodsInALoaderOfTheirOwn();
        collectGarbage(loader);
        assertThat(loader.get())
                .as("the loader whose record Java 17's record method caches name")
                .isNotNull();

        RecordMethodCaches.release();

        collectGarbage(loader);
        assertThat(loader.get()).as("the loader after the release").isNull();
    }

    private static WeakReference<ClassLoader> linkRecordMethodsInALoaderOfTheirOwn()
            throws Exception {
        URL classes = JobRecord.class.getProtectionDomain().getCodeSource().getLocation();
        URLClassLoader loader =
                new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader());
        Class<?> type = loader.loadClass(JobRecord.class.getName());
        assertThat(type.getClassLoader()).isSameAs(loader);
        Object record =
                type.getConstructor(type, String.class).newInstance(null, "the job's record");
        assertThat(record.equals(record)).isTrue();
        assertThat(record.hashCode()).isEqualTo(record.hashCode());
        assertThat(record.toString()).contains("the job's record");
        loader.close();
        return new WeakReference<>(loader);
    }

    private static void collectGarbage(WeakReference<?> until) throws InterruptedException {
        for (int i = 0; i < 20 && until.get() != null; i++) {
            System.gc();
            Thread.sleep(50);
        }
    }
}
