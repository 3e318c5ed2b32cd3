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

package io.rhino.benchmarks.scenarios;

import io.rhino.flink.config.RhinoOptions;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;

/**
 * Rhino with its auto-balancer on ({@code rhino.balancer.auto}): an operator whose max/mean load
 * stays above {@code rhino.balancer.max-imbalance} (1.2) for {@value #INTERVAL_SECONDS} s
 * rebalances itself, then waits {@value #COOLDOWN_SECONDS} s.
 */
final class AutoBalancingRhinoSut extends RhinoSut {

    static final int INTERVAL_SECONDS = 10;
    static final int COOLDOWN_SECONDS = 30;

    AutoBalancingRhinoSut(ClusterShape shape, long seed) {
        super("rhino-auto-balance", shape, seed, false);
    }

    @Override
    void configureJob(Configuration config, Path checkpointDir) {
        super.configureJob(config, checkpointDir);
        config.set(RhinoOptions.BALANCER_AUTO, true);
        config.set(RhinoOptions.BALANCER_INTERVAL, Duration.ofSeconds(INTERVAL_SECONDS));
        config.set(RhinoOptions.BALANCER_COOLDOWN, Duration.ofSeconds(COOLDOWN_SECONDS));
        config.set(RhinoOptions.LOAD_REPORT_INTERVAL, Duration.ofSeconds(1));
        config.set(RhinoOptions.LOAD_WINDOW, Duration.ofSeconds(10));
    }
}
