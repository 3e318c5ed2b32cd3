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

import io.rhino.benchmarks.harness.LoadBalancePlot;
import io.rhino.benchmarks.harness.Scenario;
import io.rhino.benchmarks.harness.ScenarioContext;
import io.rhino.benchmarks.harness.ScenarioResult;
import io.rhino.benchmarks.harness.SystemUnderTest;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.flink.reconfiguration.OperatorView;
import io.rhino.flink.reconfiguration.Reconfigurer;
import io.rhino.flink.reconfiguration.RhinoDirectory;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.operation.OperationKind;
import io.rhino.handover.operation.Reconfiguration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run on Zipf-skewed keys without any requested reconfiguration: each second it samples the Rhino
 * keyed operators' load imbalance (max/mean records per second of their active subtasks) and notes
 * every rebalance the auto-balancer starts, then draws p99 latency and imbalance of every system in
 * one PNG ({@code load-balance.png}) and writes {@code imbalance-<system>-rep<n>.csv}.
 */
final class SkewedScenario implements Scenario {

    private static final Logger LOG = LoggerFactory.getLogger(SkewedScenario.class);

    private final NexmarkScenario run;
    private final LoadBalancePlot plot;

    SkewedScenario(NexmarkScenario run) {
        this.run = run;
        this.plot = new LoadBalancePlot(run.name());
    }

    @Override
    public String name() {
        return run.name();
    }

    @Override
    public Duration expectedDuration() {
        return run.expectedDuration();
    }

    @Override
    public ScenarioResult run(SystemUnderTest sut, ScenarioContext context) throws Exception {
        Sampler sampler = new Sampler(sut.name(), context);
        Thread thread = new Thread(sampler, "imbalance-sampler");
        thread.setDaemon(true);
        thread.start();
        ScenarioResult result;
        try {
            result = run.run(sut, context);
        } finally {
            sampler.stop();
            thread.join();
        }
        write(context, sut.name(), sampler.samples);
        plot.addSut(sut.name(), context.latency().report(), sampler.samples);
        plot.writePng(context.outputDir().resolve("load-balance.png"));
        return result;
    }

    private static void write(
            ScenarioContext context, String sut, List<LoadBalancePlot.Sample> samples)
            throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("second,imbalance");
        for (LoadBalancePlot.Sample sample : samples) {
            lines.add(String.format(Locale.ROOT, "%.1f,%.4f", sample.second(), sample.imbalance()));
        }
        Path file =
                context.outputDir()
                        .resolve("imbalance-" + sut + "-rep" + context.repetition() + ".csv");
        Files.createDirectories(file.getParent());
        Files.write(file, lines);
    }

    /** Samples every second until stopped. */
    private final class Sampler implements Runnable {
        private final String sut;
        private final ScenarioContext context;
        private final List<LoadBalancePlot.Sample> samples = new ArrayList<>();
        private final Set<String> seenRebalances = new HashSet<>();
        private volatile boolean stopped;

        Sampler(String sut, ScenarioContext context) {
            this.sut = sut;
            this.context = context;
        }

        void stop() {
            stopped = true;
        }

        @Override
        public void run() {
            RhinoDirectory directory = RhinoHandovers.directory();
            while (!stopped) {
                double second = (context.nowMillis() - context.startMillis()) / 1000.0;
                double worst = 0;
                for (OperatorView operator : directory.operators()) {
                    Optional<HandoverManager> manager = operator.manager();
                    if (manager.isEmpty()) {
                        continue;
                    }
                    worst =
                            Math.max(
                                    worst,
                                    Reconfigurer.modelOf(operator, manager.get().routingTable())
                                            .imbalance());
                    noteRebalances(directory, operator, second);
                }
                if (worst > 0) {
                    synchronized (this) {
                        samples.add(new LoadBalancePlot.Sample(second, worst));
                    }
                }
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private void noteRebalances(
                RhinoDirectory directory, OperatorView operator, double second) {
            for (Reconfiguration r :
                    directory.reconfigurations().recent(operator.jobId(), operator.name())) {
                if (r.kind() == OperationKind.AUTO_REBALANCE && seenRebalances.add(r.requestId())) {
                    context.markReconfiguration("auto-rebalance " + operator.name());
                    plot.addMarker(sut + " rebalance", second);
                    LOG.info(
                            "{}: auto-rebalance of {} at {} s ({})",
                            sut,
                            operator.name(),
                            (long) second,
                            r.parameters());
                }
            }
        }
    }
}
