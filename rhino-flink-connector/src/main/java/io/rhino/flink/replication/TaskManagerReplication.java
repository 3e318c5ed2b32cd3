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

    /** A started service, and how many gates of each job on this TaskManager use it. */
    private record Running(ReplicationService service, Map<String, Integer> usersByJob) {
        int users() {
            return usersByJob.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    private static final Map<String, Running> BY_TASK_MANAGER = new HashMap<>();

    private TaskManagerReplication() {}

    /**
     * The TaskManager's service, started if needed.
     *
     * @param taskManager the TaskManager's name
     * @param job the job of the gate acquiring it
     * @param settings the job's settings, already {@linkplain
     *     RhinoRuntimeSettings.Replication#onTaskManager overridden} by the TaskManager's own
     * @param defaultHost its own address, used unless {@code rhino.replication.bind-host} is set
     * @param defaultDirectory where replicas go unless {@code rhino.replication.dir} is set
     */
    public static synchronized ReplicationService acquire(
            String taskManager,
            String job,
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
            service.store().listen(new VnodeReplicaCollector(service.store()));
            LOG.info("TaskManager {} replicates through {}", taskManager, service.address());
            running = new Running(service, new HashMap<>());
            BY_TASK_MANAGER.put(taskManager, running);
        }
        running.usersByJob().merge(job, 1, Integer::sum);
        return running.service();
    }

    /**
     * A gate that acquired the service ended. The last gate of a job on this TaskManager drops the
     * replicas it holds of that job (other TaskManagers still running the job send them again when
     * they find them missing); the last gate of all stops the service.
     */
    public static synchronized void release(String taskManager, String job) {
        Running running = BY_TASK_MANAGER.get(taskManager);
        if (running == null || !running.usersByJob().containsKey(job)) {
            return;
        }
        if (running.usersByJob().merge(job, -1, Integer::sum) <= 0) {
            running.usersByJob().remove(job);
            String directory = PeerVnodeReplication.segment(job);
            try {
                running.service().store().deleteTree(directory);
            } catch (IOException e) {
                LOG.warn("Could not delete the replicas of job {}: {}", job, e.toString());
            }
        }
        if (running.users() == 0) {
            BY_TASK_MANAGER.remove(taskManager);
            running.service().close();
        }
    }
}
