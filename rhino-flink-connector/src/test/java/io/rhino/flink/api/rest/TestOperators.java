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

package io.rhino.flink.api.rest;

import io.rhino.core.routing.RoutingTable;
import io.rhino.core.routing.VnodeLayout;
import io.rhino.flink.IdleManagers;
import io.rhino.flink.reconfiguration.OperatorView;
import io.rhino.flink.reconfiguration.RhinoDirectory;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.operation.Reconfigurations;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Rhino operators as the REST API sees them, each with a real {@link HandoverManager} whose
 * commands go nowhere: a handover it starts stays in its first phase until the test ends it.
 */
final class TestOperators implements RhinoDirectory, AutoCloseable {

    static final int PARALLELISM = 4;
    static final int VNODES = 16;

    private final List<OperatorView> operators = new CopyOnWriteArrayList<>();
    private final Reconfigurations reconfigurations =
            new Reconfigurations(1_000, System::currentTimeMillis);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    /** Adds a running operator of {@code jobId}; {@code token} null for none. */
    HandoverManager add(String jobId, String name, boolean served, String token) {
        HandoverManager manager =
                IdleManagers.manager(
                        name,
                        RoutingTable.initial(
                                new VnodeLayout(128, VNODES), PARALLELISM, PARALLELISM),
                        PARALLELISM,
                        System::currentTimeMillis,
                        timer);
        operators.add(
                new OperatorView() {
                    @Override
                    public String jobId() {
                        return jobId;
                    }

                    @Override
                    public String name() {
                        return name;
                    }

                    @Override
                    public int parallelism() {
                        return PARALLELISM;
                    }

                    @Override
                    public Optional<HandoverManager> manager() {
                        return Optional.of(manager);
                    }

                    @Override
                    public Map<Integer, String> taskManagerBySubtask() {
                        return Map.of(0, "tm-a", 1, "tm-a", 2, "tm-b", 3, "tm-b");
                    }

                    @Override
                    public double[] recordsPerSecond() {
                        return new double[VNODES];
                    }

                    @Override
                    public long stateBytes(int vnode) {
                        return -1;
                    }

                    @Override
                    public boolean servedOverRest() {
                        return served;
                    }

                    @Override
                    public Optional<String> restToken() {
                        return Optional.ofNullable(token);
                    }
                });
        return manager;
    }

    @Override
    public List<OperatorView> operators() {
        return List.copyOf(operators);
    }

    @Override
    public Reconfigurations reconfigurations() {
        return reconfigurations;
    }

    @Override
    public void close() {
        operators.forEach(o -> o.manager().ifPresent(HandoverManager::close));
        timer.shutdownNow();
    }
}
