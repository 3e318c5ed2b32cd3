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

package io.rhino.flink.reconfiguration;

import io.rhino.handover.HandoverManager;
import io.rhino.handover.operation.OperationKind;
import io.rhino.handover.operation.Reconfiguration;
import io.rhino.handover.operation.ReconfigurationConflictException;
import io.rhino.handover.policy.AutoBalanceTrigger;
import io.rhino.handover.policy.ClusterModel;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebalances one Rhino operator by itself ({@code rhino.balancer.auto}): checked periodically, it
 * measures the operator's load imbalance and, when {@link AutoBalanceTrigger} says so, starts a
 * rebalance like one requested over REST (so it never runs beside another reconfiguration). Every
 * decision is logged and counted.
 */
public final class AutoBalancer implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(AutoBalancer.class);

    private final OperatorView operator;
    private final Reconfigurer reconfigurer;
    private final RhinoDirectory directory;
    private final AutoBalanceTrigger trigger;
    private final LongSupplier clockMillis;
    private final AtomicLong rebalances = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private volatile double lastImbalance = 1.0;
    private long lastSeenRebalanceAt = Long.MIN_VALUE;

    public AutoBalancer(
            OperatorView operator,
            RhinoDirectory directory,
            AutoBalanceTrigger trigger,
            LongSupplier clockMillis) {
        this.operator = operator;
        this.directory = directory;
        this.reconfigurer = new Reconfigurer(directory);
        this.trigger = trigger;
        this.clockMillis = clockMillis;
    }

    @Override
    public void run() {
        try {
            check();
        } catch (RuntimeException e) {
            LOG.warn("Auto-balancer of Rhino operator '{}' failed a check", operator.name(), e);
        }
    }

    private synchronized void check() {
        Optional<HandoverManager> manager = operator.manager();
        if (manager.isEmpty() || manager.get().suspension().isPresent()) {
            return;
        }
        long now = clockMillis.getAsLong();
        noteOtherRebalances();
        ClusterModel model = Reconfigurer.modelOf(operator, manager.get().routingTable());
        double imbalance = model.imbalance();
        lastImbalance = imbalance;
        if (!trigger.observe(imbalance, busiest(model.activeSubtasks()), now)) {
            return;
        }
        String requestId = "auto-" + now;
        try {
            Reconfiguration started =
                    reconfigurer.rebalance(
                            requestId,
                            operator,
                            trigger.maxImbalance(),
                            OperationKind.AUTO_REBALANCE);
            trigger.rebalanced(now);
            rebalances.incrementAndGet();
            LOG.info(
                    "Auto-balancer of Rhino operator '{}' of job {}: imbalance {} above {},"
                            + " rebalancing as request {} ({})",
                    operator.name(),
                    operator.jobId(),
                    String.format("%.2f", imbalance),
                    trigger.maxImbalance(),
                    requestId,
                    started.steps().isEmpty() || started.steps().get(0).moves().isEmpty()
                            ? "no move helps"
                            : started.steps().get(0).moves());
        } catch (ReconfigurationConflictException | ReconfigurationRequestException e) {
            skipped.incrementAndGet();
            LOG.info(
                    "Auto-balancer of Rhino operator '{}': imbalance {} above {}, but not now: {}",
                    operator.name(),
                    String.format("%.2f", imbalance),
                    trigger.maxImbalance(),
                    e.getMessage());
        }
    }

    /** The highest busy time an active subtask reported, NaN if none did. */
    private double busiest(Set<Integer> activeSubtasks) {
        double busiest = Double.NaN;
        for (Map.Entry<Integer, Double> busy : operator.busyTimeMsPerSecond().entrySet()) {
            double value = busy.getValue();
            if (activeSubtasks.contains(busy.getKey())
                    && !Double.isNaN(value)
                    && (Double.isNaN(busiest) || value > busiest)) {
                busiest = value;
            }
        }
        return busiest;
    }

    /** A rebalance someone requested over REST starts the cooldown too. */
    private void noteOtherRebalances() {
        for (Reconfiguration r :
                directory.reconfigurations().recent(operator.jobId(), operator.name())) {
            if (r.kind() == OperationKind.REBALANCE
                    && r.requestedAtMillis() > lastSeenRebalanceAt) {
                lastSeenRebalanceAt = r.requestedAtMillis();
                trigger.rebalanced(r.requestedAtMillis());
            }
        }
    }

    /** Rebalances this balancer started. */
    public long rebalances() {
        return rebalances.get();
    }

    /** Times it wanted to rebalance but could not (another reconfiguration ran, job restarting). */
    public long skipped() {
        return skipped.get();
    }

    /** The imbalance it measured last. */
    public double lastImbalance() {
        return lastImbalance;
    }
}
