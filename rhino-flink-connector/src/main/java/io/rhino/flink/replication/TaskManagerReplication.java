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

package io.rhino.flink.replication;

import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.replication.ReplicationConfig;
import io.rhino.replication.ReplicationService;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replication service of each TaskManager, started by the first Rhino gate that runs there and
 * stopped with the last. Keyed by TaskManager, so the TaskManagers of one JVM (a MiniCluster) act
 * as separate peers with their own ports and replica directories.
 */
public final class TaskManagerReplication {

    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerReplication.class);

    private record Running(ReplicationService service, int users) {}

    private static final Map<String, Running> BY_TASK_MANAGER = new HashMap<>();

    private TaskManagerReplication() {}

    /**
     * The TaskManager's service, started if needed.
     *
     * @param taskManager the TaskManager's name
     * @param defaultHost its own address, used unless {@code rhino.replication.bind-host} is set
     * @param defaultDirectory where replicas go unless {@code rhino.replication.dir} is set
     */
    public static synchronized ReplicationService acquire(
            String taskManager,
            RhinoRuntimeSettings.Replication settings,
            String defaultHost,
            Path defaultDirectory)
            throws IOException {
        Running running = BY_TASK_MANAGER.get(taskManager);
        if (running == null) {
            Path root =
                    settings.directory() != null ? Path.of(settings.directory()) : defaultDirectory;
            String host =
                    settings.bindHost() != null
                            ? settings.bindHost()
                            : defaultHost == null || defaultHost.isBlank()
                                    ? "127.0.0.1"
                                    : defaultHost;
            ReplicationService service =
                    ReplicationService.start(
                            new ReplicationConfig(
                                    host,
                                    settings.firstPort(),
                                    settings.lastPort(),
                                    root.resolve(PeerVnodeReplication.segment(taskManager)),
                                    settings.secret(),
                                    settings.timeout()));
            LOG.info("TaskManager {} replicates through {}", taskManager, service.address());
            running = new Running(service, 0);
        }
        BY_TASK_MANAGER.put(taskManager, new Running(running.service(), running.users() + 1));
        return running.service();
    }

    /** A gate that acquired the service ended; the last one stops it. */
    public static synchronized void release(String taskManager) {
        Running running = BY_TASK_MANAGER.get(taskManager);
        if (running == null) {
            return;
        }
        if (running.users() <= 1) {
            BY_TASK_MANAGER.remove(taskManager);
            running.service().close();
        } else {
            BY_TASK_MANAGER.put(taskManager, new Running(running.service(), running.users() - 1));
        }
    }
}
