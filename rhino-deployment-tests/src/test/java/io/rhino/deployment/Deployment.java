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

package io.rhino.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.replication.SelfSignedKeyStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session cluster with Rhino deployed one way ({@link Placement}), the job jar uploaded once, and
 * the jobs run from it: Rhino's counting job and the same job on Flink's {@code keyBy}. Replication
 * between the TaskManagers is on, over TLS, with the replicas of TaskManager i under {@code
 * replicas/tm-i}.
 */
final class Deployment implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Deployment.class);

    static final String PASSWORD = "rhino-deployment";
    static final int EVENTS = 20_000;
    static final int VNODES = 12;

    private final Placement placement;
    private final Path directory;
    private final FlinkSession session;
    private final String jarId;
    // placement LIB: the one Rhino REST port of the JobManager, set in its config.yaml
    private final int sharedRestPort;

    private Deployment(Placement placement, Path directory, FlinkSession session, int restPort)
            throws Exception {
        this.placement = placement;
        this.directory = directory;
        this.session = session;
        this.sharedRestPort = restPort;
        this.jarId = session.rest().upload(placement.jobJar());
    }

    static Deployment start(
            Placement placement, Path directory, int taskManagers, int slots, int factor)
            throws Exception {
        Path store = SelfSignedKeyStore.create(directory.resolve("tls"), "cluster", PASSWORD);
        int restPort = FlinkSession.freePort();
        Configuration common = new Configuration();
        common.setString("taskmanager.numberOfTaskSlots", String.valueOf(slots));
        common.setString("taskmanager.load-balance.mode", "SLOTS");
        common.setString("metrics.fetcher.update-interval", "1000");
        common.setString(
                "execution.checkpointing.dir", directory.resolve("checkpoints").toUri().toString());
        common.setString("execution.checkpointing.tolerable-failed-checkpoints", "5");
        common.setString("restart-strategy.type", "fixed-delay");
        common.setString("restart-strategy.fixed-delay.attempts", "20");
        common.setString("restart-strategy.fixed-delay.delay", "1 s");
        common.setString("rhino.replication.mode", "peers");
        common.setString("rhino.replication.factor", String.valueOf(factor));
        // a cancelled job's replicas go soon after its tasks; a failover takes less than this
        common.setString("rhino.replication.retain-after-tasks", "20 s");
        common.setString("rhino.replication.ssl.enabled", "true");
        common.setString("security.ssl.internal.keystore", store.toString());
        common.setString("security.ssl.internal.keystore-password", PASSWORD);
        common.setString("security.ssl.internal.key-password", PASSWORD);
        common.setString("security.ssl.internal.keystore-type", "PKCS12");
        common.setString("security.ssl.internal.truststore", store.toString());
        common.setString("security.ssl.internal.truststore-password", PASSWORD);
        common.setString("security.ssl.internal.truststore-type", "PKCS12");
        common.setString("rhino.rest.port", String.valueOf(restPort));
        FlinkSession session =
                FlinkSession.start(
                        directory.resolve("cluster"),
                        placement.clusterLib(),
                        taskManagers,
                        common,
                        (index, config) ->
                                config.setString(
                                        "rhino.replication.dir",
                                        replicaDirectory(directory, index).toString()));
        try {
            return new Deployment(placement, directory, session, restPort);
        } catch (Exception | Error e) {
            session.close();
            throw e;
        }
    }

    static Path replicaDirectory(Path directory, int index) {
        return directory.resolve("replicas").resolve("tm-" + index);
    }

    Path replicaDirectory(int index) {
        return replicaDirectory(directory, index);
    }

    FlinkSession session() {
        return session;
    }

    Placement placement() {
        return placement;
    }

    /** A Rhino job run from the uploaded jar, with its own operator name and output. */
    record RhinoJob(String jobId, String operator, Path output, RhinoRest rest) {}

    /**
     * Runs the counting job on Rhino. With the connector in the job jar each job has Rhino's
     * classes of its own, so its own REST server, which needs a port of its own.
     */
    RhinoJob runRhino(String operator, int parallelism) throws Exception {
        Path output = directory.resolve("output-" + operator);
        int restPort = placement == Placement.LIB ? sharedRestPort : FlinkSession.freePort();
        List<String> arguments = new ArrayList<>(arguments("rhino", operator, output, parallelism));
        arguments.addAll(List.of("--rhino.rest.port", String.valueOf(restPort)));
        String jobId = session.rest().run(jarId, arguments);
        LOG.info("Rhino job {} ({}) runs from jar {}", jobId, operator, jarId);
        return new RhinoJob(jobId, operator, output, new RhinoRest(restPort, jobId, operator));
    }

    /** The reference: the same events counted on Flink's keyBy, until all are committed. */
    Map<String, Integer> plainFlinkCounts(int parallelism) throws Exception {
        Path output = directory.resolve("output-plain");
        String jobId = session.rest().run(jarId, arguments("plain", "plain", output, parallelism));
        List<String> lines = JobOutput.awaitCommitted(output, EVENTS, Duration.ofSeconds(120));
        session.rest().cancel(jobId, Duration.ofSeconds(60));
        assertThat(lines).as("plain Flink's committed lines").hasSize(EVENTS);
        return JobOutput.counts(lines);
    }

    private static List<String> arguments(
            String mode, String operator, Path output, int parallelism) {
        return List.of(
                "--mode", mode,
                "--operator", operator,
                "--output", output.toUri().toString(),
                "--events", String.valueOf(EVENTS),
                "--parallelism", String.valueOf(parallelism),
                "--vnodes", String.valueOf(VNODES));
    }

    /** The job's committed counts once all events are in, compared by the caller. */
    static Map<String, Integer> committedCounts(RhinoJob job) throws Exception {
        return JobOutput.counts(
                JobOutput.awaitCommitted(job.output(), EVENTS, Duration.ofSeconds(180)));
    }

    /**
     * After every job was cancelled: nothing of Rhino is left in any live process (no thread, no
     * Rhino class in a user-code class loader after a full GC), its REST port and the replication
     * services are closed and the replica directories hold no file. Waits for the replicas'
     * retention first.
     */
    void assertNothingLeft(Set<Integer> restPorts, Set<String> replicationServices, int... killed)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        Set<Integer> dead = new java.util.HashSet<>();
        for (int index : killed) {
            dead.add(index);
        }
        List<String> left = leftovers(restPorts, replicationServices, dead);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(2_000);
            left = leftovers(restPorts, replicationServices, dead);
        }
        if (!left.isEmpty()) {
            left.addAll(whatHoldsTheUserClassLoaders());
        }
        assertThat(left).as("what the cancelled Rhino jobs left behind").isEmpty();
    }

    /**
     * For each live process whose user class loaders still hold Rhino's classes: the shortest
     * strong paths from a GC root to such a loader, read from a heap dump of the process (kept in
     * the test's directory).
     */
    private List<String> whatHoldsTheUserClassLoaders() throws Exception {
        List<String> paths = new ArrayList<>();
        for (FlinkProcess process : session.liveProcesses()) {
            if (Leftovers.rhinoClassesOfUserLoaders(process).isEmpty()) {
                continue;
            }
            Path dump = directory.resolve(process.name() + ".hprof");
            process.jcmd("GC.heap_dump", dump.toString());
            List<String> found = HeapPaths.toInstances(dump, Leftovers::isUserClassLoader, 3);
            found.forEach(
                    path -> paths.add(process.name() + " keeps a user class loader: " + path));
            if (found.isEmpty()) {
                // Flink's safety net around a job's loader, emptied at the release, still keeps
                // the job's loader alive through the JVM's record of the classes loaded through it
                // (not in a heap dump): what keeps a safety net is then what keeps the job's loader
                List<String> safetyNets =
                        HeapPaths.toInstances(dump, Leftovers::isSafetyNetClassLoader, 3);
                safetyNets.forEach(
                        path ->
                                paths.add(
                                        process.name()
                                                + " keeps a job's safety-net class loader: "
                                                + path));
                if (safetyNets.isEmpty()) {
                    paths.add(
                            process.name()
                                    + ": no strong path from a GC root or a class of another"
                                    + " loader to a user class loader or a safety net in "
                                    + dump
                                    + ": what keeps it is not in the heap dump (a JVM-internal"
                                    + " reference) or only weak, soft, phantom or finalizer"
                                    + " references lead to it");
                }
            }
        }
        return paths;
    }

    private List<String> leftovers(
            Set<Integer> restPorts, Set<String> replicationServices, Set<Integer> killed)
            throws Exception {
        List<String> left = new ArrayList<>();
        for (FlinkProcess process : session.liveProcesses()) {
            Leftovers.rhinoThreads(process).forEach(t -> left.add(process.name() + " thread " + t));
            // Flink 2.2.1 itself may keep a cancelled job's class loader on a TaskManager for a
            // while (seen with the plain-Flink job too): logged, not counted against Rhino
            List<String> loaders = Leftovers.userClassLoaders(process);
            if (!loaders.isEmpty()) {
                LOG.info("{} still has user class loaders: {}", process.name(), loaders);
            }
            Leftovers.rhinoClassesOfUserLoaders(process).stream()
                    .limit(5)
                    .forEach(c -> left.add(process.name() + " user class " + c));
        }
        for (int port : restPorts) {
            if (Leftovers.listening("127.0.0.1:" + port)) {
                left.add("Rhino REST port " + port + " open");
            }
        }
        for (String service : replicationServices) {
            if (isOnLiveTaskManager(service, killed) && Leftovers.listening(service)) {
                left.add("replication service " + service + " open");
            }
        }
        for (int index = 0; index < session.taskManagers().size(); index++) {
            if (killed.contains(index)) {
                continue;
            }
            Leftovers.files(replicaDirectory(index)).forEach(f -> left.add("replica file " + f));
        }
        return left;
    }

    private boolean isOnLiveTaskManager(String service, Set<Integer> killed) {
        String host = service.substring(0, service.lastIndexOf(':'));
        return !killed.contains(session.taskManagerAt(host));
    }

    /**
     * The replication services the TaskManagers started ({@code host:port}), as each logged it:
     * {@code TaskManager ... replicates through <address>}.
     */
    Set<String> replicationServices() throws java.io.IOException {
        Set<String> services = new java.util.TreeSet<>();
        java.util.regex.Pattern started =
                java.util.regex.Pattern.compile("replicates through (\\S+)");
        for (FlinkProcess taskManager : session.taskManagers()) {
            for (String line : java.nio.file.Files.readAllLines(taskManager.log())) {
                java.util.regex.Matcher matcher = started.matcher(line);
                if (matcher.find()) {
                    services.add(matcher.group(1));
                }
            }
        }
        return services;
    }

    @Override
    public void close() throws InterruptedException {
        session.close();
    }
}
