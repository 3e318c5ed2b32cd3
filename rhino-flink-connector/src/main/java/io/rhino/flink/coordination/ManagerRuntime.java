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

import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.reconfiguration.AutoBalancer;
import io.rhino.flink.reconfiguration.RhinoDirectory;
import io.rhino.flink.spec.RhinoOperatorSpec;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverManagerOptions;
import io.rhino.handover.load.VnodeLoads;
import io.rhino.handover.policy.AutoBalanceTrigger;
import io.rhino.handover.replication.FullStores;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.util.concurrent.ExecutorThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's handover manager and what runs beside it on the operator's own timer thread: the
 * manager's timeouts, the full-store back-off's checks and the auto-balancer. Created once, by the
 * gate coordinator's first start (the manager outlives coordinator re-creation on failover), and
 * closed when the job ends.
 *
 * <p>Its references never change once built, so the hub publishes it whole to readers on any
 * thread; it is created and closed under the hub's monitor.
 */
final class ManagerRuntime {

    private static final Logger LOG = LoggerFactory.getLogger(ManagerRuntime.class);

    private final String operatorName;
    private final RhinoRuntimeSettings settings;
    private final VnodeLoads loads;

    /**
     * The operator's own, shut down with it: a thread that outlived the job would keep the job's
     * class loader, and with it every class of the job, on a session cluster.
     */
    private final ScheduledExecutorService timer;

    private final HandoverManager manager;
    private final FullStoreBackoff backoff;
    private final AutoBalancer autoBalancer; // null unless rhino.balancer.auto is on

    /**
     * @param backoffCheck what the timer runs when a full store's back-off may have ended
     * @param view what the auto-balancer reads of the operator; the back-off publishes to it
     */
    ManagerRuntime(
            RhinoOperatorSpec spec,
            int routerParallelism,
            HandoverManager.ProtocolPort port,
            HandoverManagerOptions options,
            RhinoRuntimeSettings settings,
            Runnable backoffCheck,
            OperatorReadModel view,
            RhinoDirectory directory) {
        this.operatorName = spec.name();
        this.settings = settings;
        Duration fullStoreBackoff = settings.replication().fullStoreBackoff();
        // what may refuse the settings comes before the thread starts
        FullStores fullStores = new FullStores(fullStoreBackoff);
        this.loads = new VnodeLoads(spec.numVnodes(), settings.loadWindow());
        this.timer =
                Executors.newSingleThreadScheduledExecutor(
                        new ExecutorThreadFactory("rhino-handover-timer-" + spec.name()));
        this.backoff =
                new FullStoreBackoff(
                        spec.name(),
                        fullStoreBackoff,
                        fullStores,
                        timer,
                        backoffCheck,
                        view::fullStoreBackoffs);
        this.manager =
                new HandoverManager(
                        spec.name(),
                        spec.initialRoutingTable(),
                        routerParallelism,
                        port,
                        options,
                        System::currentTimeMillis,
                        timer);
        RhinoRuntimeSettings.Balancer balancer = settings.balancer();
        this.autoBalancer =
                balancer.auto()
                        ? new AutoBalancer(
                                view,
                                directory,
                                new AutoBalanceTrigger(
                                        balancer.maxImbalance(),
                                        balancer.interval().toMillis(),
                                        balancer.cooldown().toMillis(),
                                        balancer.minBusyMsPerSecond()),
                                System::currentTimeMillis)
                        : null;
    }

    HandoverManager manager() {
        return manager;
    }

    RhinoRuntimeSettings settings() {
        return settings;
    }

    VnodeLoads loads() {
        return loads;
    }

    FullStoreBackoff backoff() {
        return backoff;
    }

    /** The auto-balancer, if {@code rhino.balancer.auto} is on. */
    Optional<AutoBalancer> autoBalancer() {
        return Optional.ofNullable(autoBalancer);
    }

    /** Starts the auto-balancer's checks, if it is on. */
    void startAutoBalancer() {
        if (autoBalancer == null) {
            return;
        }
        RhinoRuntimeSettings.Balancer balancer = settings.balancer();
        // checks a few times per interval, so an imbalance is acted on soon after it lasted
        long period = Math.max(100, balancer.interval().toMillis() / 4);
        timer.scheduleWithFixedDelay(autoBalancer, period, period, TimeUnit.MILLISECONDS);
        LOG.info(
                "Auto-balancer of Rhino operator '{}' is on: rebalances above {} max/mean load"
                        + " sustained for {} while the busiest subtask is busy at least {} ms/s,"
                        + " then waits {}",
                operatorName,
                balancer.maxImbalance(),
                balancer.interval(),
                balancer.minBusyMsPerSecond(),
                balancer.cooldown());
    }

    /** Fails what still runs, refuses what comes, and stops the timer thread. */
    void close() {
        manager.close();
        timer.shutdownNow();
    }
}
