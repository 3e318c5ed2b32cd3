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

package io.rhino.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import one.profiler.AsyncProfiler;
import one.profiler.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A profile of one measured window, taken when {@code -Drhino.bench.profile.dir} names a directory:
 * async-profiler samples every thread every 2 ms from the window's open to its close and writes
 * collapsed stacks, each prefixed with its thread's name, to {@code <dir>/<run id>.collapsed}. With
 * the window's consumed records beside it, samples per record compare systems thread group by
 * thread group. {@code -Drhino.bench.profile.event=alloc} profiles allocations instead, counting
 * bytes.
 */
public final class WindowProfile {

    static final String DIRECTORY_PROPERTY = "rhino.bench.profile.dir";

    private static final Logger LOG = LoggerFactory.getLogger(WindowProfile.class);

    /**
     * What is sampled: {@code cpu} (the default, samples every 2 ms) or another async-profiler
     * event such as {@code alloc}, whose profile counts bytes allocated instead of samples.
     */
    static final String EVENT_PROPERTY = "rhino.bench.profile.event";

    private static final WindowProfile NONE = new WindowProfile(null, null, Counter.SAMPLES);

    private final AsyncProfiler profiler;
    private final Path output;
    private final Counter counter;

    private WindowProfile(AsyncProfiler profiler, Path output, Counter counter) {
        this.profiler = profiler;
        this.output = output;
        this.counter = counter;
    }

    /** Starts a profile for this run's window, or nothing without the property. */
    static WindowProfile startFor(ScenarioContext context) {
        // the run id names the scenario, system and repetition with slashes
        return start(context.runId());
    }

    /**
     * Starts a profile written as {@code <name>.collapsed} under {@code rhino.bench.profile.dir},
     * or nothing without the property.
     */
    public static WindowProfile start(String runName) {
        String directory = System.getProperty(DIRECTORY_PROPERTY);
        if (directory == null || directory.isBlank()) {
            return NONE;
        }
        try {
            Path dir = Files.createDirectories(Path.of(directory));
            AsyncProfiler profiler = AsyncProfiler.getInstance();
            String event = System.getProperty(EVENT_PROPERTY, "cpu");
            profiler.execute(
                    "start,event="
                            + event
                            + (event.equals("cpu") ? ",interval=2ms" : "")
                            + ",threads");
            String name = runName.replaceAll("[^A-Za-z0-9._-]+", "_");
            return new WindowProfile(
                    profiler,
                    dir.resolve(name + ".collapsed"),
                    event.equals("cpu") ? Counter.SAMPLES : Counter.TOTAL);
        } catch (IOException | RuntimeException e) {
            // A benchmark without its profile still measures; say why there is none.
            LOG.warn("No CPU profile of this window: {}", e.toString());
            return NONE;
        }
    }

    /** Stops the profile and writes it, if there is one. */
    public void stop() {
        if (profiler == null) {
            return;
        }
        try {
            profiler.stop();
            Files.writeString(output, profiler.dumpCollapsed(counter));
            LOG.info("Profile of the window: {}", output);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not write the CPU profile {}: {}", output, e.toString());
        }
    }
}
