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

package io.rhino.flink.config;

import io.rhino.replication.ReplicationConfig;
import io.rhino.replication.ReplicationLimits;
import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Every configuration option of Rhino. Options are read from the job configuration first and the
 * cluster configuration second, like Flink's own. The reference in {@code docs/configuration.md} is
 * generated from this class.
 */
public final class RhinoOptions {

    /** Vnodes per deployed subtask when {@code rhino.vnodes} is not set. */
    public static final int DEFAULT_VNODES_PER_SUBTASK = 4;

    /** Above this many vnodes (RocksDB instances) in one slot the backend logs a warning. */
    public static final int MAX_VNODES_PER_SLOT_WITHOUT_WARNING = 16;

    /** The number of virtual nodes of a Rhino keyed operator, unless its options say otherwise. */
    public static final ConfigOption<Integer> VNODES =
            ConfigOptions.key("rhino.vnodes")
                    .intType()
                    .noDefaultValue()
                    .withDescription(
                            "Number of virtual nodes (vnodes) of each Rhino keyed operator. A vnode "
                                    + "is a fixed, contiguous range of key groups and the unit "
                                    + "of state migration; each owned vnode is one RocksDB "
                                    + "instance, and the instances of a slot share its managed "
                                    + "memory. Defaults to "
                                    + DEFAULT_VNODES_PER_SUBTASK
                                    + " per deployed subtask (at most the number of key groups) "
                                    + "at a fresh start; unset, a restore keeps the count of "
                                    + "the restored state at any parallelism. Set to another "
                                    + "count than the restored state's, a restore re-cuts the "
                                    + "same key groups into the new vnodes (from a retained "
                                    + "checkpoint, a native or a canonical savepoint; such a "
                                    + "restore reads the checkpoint storage, not replicas or "
                                    + "task-local copies). "
                                    + "More vnodes allow finer moves but cost throughput and "
                                    + "checkpoint time: each instance flushes its memtables and "
                                    + "takes a RocksDB checkpoint while the task waits in every "
                                    + "checkpoint's synchronous phase (a warning is logged above "
                                    + MAX_VNODES_PER_SLOT_WITHOUT_WARNING
                                    + " per slot). At most the number of key groups "
                                    + "(rhino.key-groups), which stay fixed for the life of the "
                                    + "job's state.");

    /** The number of key groups (Flink's max parallelism) of a Rhino keyed operator. */
    public static final ConfigOption<Integer> KEY_GROUPS =
            ConfigOptions.key("rhino.key-groups")
                    .intType()
                    .defaultValue(1 << 15)
                    .withDescription(
                            "Number of key groups of each Rhino keyed operator, i.e. the "
                                    + "operator's max parallelism. Fixed for the life of the "
                                    + "job's state. Each key group costs a little heap in every "
                                    + "timer service of the vnode holding it (Flink's RocksDB "
                                    + "timer queue keeps a cached queue per key group): a job "
                                    + "with many timers spends noticeably more time in garbage "
                                    + "collection at the default than with a few hundred key "
                                    + "groups (see docs/benchmarks.md). A restore reads the "
                                    + "first timer of every key group of each vnode (a "
                                    + "handover's target gets them from the origin instead): "
                                    + "with a timer per record, 0.07-0.27 s per vnode of "
                                    + "170 MB at the default against 0.02-0.08 s at 4,096, "
                                    + "and up to 1.6 s per vnode of 1.4 GB at the default. "
                                    + "It must be at least the number of vnodes.");

    /** How many completed checkpoints' files the backend keeps. */
    public static final ConfigOption<Integer> RETAINED_CHECKPOINTS =
            ConfigOptions.key("rhino.state.retained-checkpoints")
                    .intType()
                    .noDefaultValue()
                    .withDescription(
                            "Number of completed checkpoints whose vnode files the Rhino state "
                                    + "backend keeps before deleting files no retained "
                                    + "checkpoint references. Defaults to "
                                    + "'execution.checkpointing.num-retained'.");

    /** Whether a checkpoint reuses an idle vnode's snapshot of the last completed checkpoint. */
    public static final ConfigOption<Boolean> STATE_REUSE_IDLE_VNODES =
            ConfigOptions.key("rhino.state.reuse-idle-vnodes")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether a checkpoint reuses the snapshot a vnode took for the last "
                                    + "completed checkpoint when nothing was written to the vnode "
                                    + "since (no state write, clear, merge or timer change): its "
                                    + "RocksDB instance is neither flushed nor checkpointed, and "
                                    + "the checkpoint refers to the same shared files. Savepoints "
                                    + "never reuse. With replication on, the replica chain lists "
                                    + "its copy of the reused snapshot again (only RocksDB's small "
                                    + "metadata files are sent) where its last round of the vnode "
                                    + "sent that snapshot whole. With task-local recovery the "
                                    + "reused snapshot's local copy is hard-linked into the "
                                    + "reusing checkpoint's local directory, so the vnode keeps "
                                    + "its local recovery. Not while another checkpoint of the "
                                    + "subtask still runs.");

    /** Whether checkpoints store the first timer of each key group of the vnodes' timer queues. */
    public static final ConfigOption<Boolean> STATE_CHECKPOINT_TIMER_HEADS =
            ConfigOptions.key("rhino.state.checkpoint-timer-heads")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether every checkpoint and native savepoint stores the first timer"
                                    + " of each key group of every vnode's RocksDB timer queues,"
                                    + " as the queues' caches hold them, so that a restore"
                                    + " (failover, local recovery, restore from replicas or a"
                                    + " savepoint) creates the timer queues without a RocksDB"
                                    + " seek per key group. With a timer per record (NBQ8, 2 GB),"
                                    + " those seeks took 0.19-0.38 s per subtask of 4 vnodes of"
                                    + " 130 MB, and up to 1.6 s per vnode of 1.4 GB. The"
                                    + " checkpoint's synchronous part reads the key groups whose"
                                    + " timers changed since the last checkpoint: about 1 ms per"
                                    + " subtask of 4 vnodes of 2,048 key groups at 800 records/s,"
                                    + " 5-10 ms when every key group changes between checkpoints."
                                    + " The deflated heads add 20-40 KB per vnode (NBQ8) to the"
                                    + " subtask's vnode manifest, a file of every checkpoint."
                                    + " Turn it off where that matters more than the restore's"
                                    + " time, or to write checkpoints that Rhino versions"
                                    + " without this option restore.");

    /** The block size of the vnode instances' memtable arenas. */
    public static final ConfigOption<MemorySize> STATE_ARENA_BLOCK_SIZE =
            ConfigOptions.key("rhino.state.arena-block-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("64kb"))
                    .withDescription(
                            "Size of the blocks in which the memtables of each vnode's RocksDB"
                                    + " instance allocate memory (RocksDB's arena_block_size). A"
                                    + " memtable that holds any data holds at least one block,"
                                    + " and the slot's write buffer manager counts whole blocks:"
                                    + " with RocksDB's default of 1 MB, the many vnode instances"
                                    + " and column families of a slot fill the slot's write"
                                    + " buffer memory with nearly empty blocks, so that every"
                                    + " write flushes a memtable of a few KB, and the flushes and"
                                    + " compactions of the tiny files take more CPU than the"
                                    + " records. 0 keeps RocksDB's default. An arena block size"
                                    + " set by a RocksDB options factory wins.");

    /** How long a handover may take before it is failed and the job rolled back. */
    public static final ConfigOption<Duration> HANDOVER_TIMEOUT =
            ConfigOptions.key("rhino.handover.timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(60))
                    .withDescription(
                            "How long a handover may take. A handover still running after it is "
                                    + "reported FAILED with the phase it was stuck in and what it "
                                    + "waited for, and the job is restarted from the last "
                                    + "checkpoint (taken before the handover), since some routers "
                                    + "may already have switched. Read from the job "
                                    + "configuration when the Rhino keyed stream is built.");

    /** How many vnodes a gate ships or opens at once during a handover, or restores at once. */
    public static final ConfigOption<Integer> HANDOVER_THREADS =
            ConfigOptions.key("rhino.handover.threads")
                    .intType()
                    .defaultValue(4)
                    .withDescription(
                            "How many vnodes a gate ships (origin: a RocksDB checkpoint of each,"
                                    + " and the send of what the target's TaskManager lacks) or"
                                    + " opens (target: restoring each RocksDB instance) at once"
                                    + " during a handover, on threads of its own. Both mostly wait"
                                    + " for the disk or a peer, so a few threads shorten a handover"
                                    + " of many vnodes even on few cores; 1 moves them one after"
                                    + " the other. The target goes on with its other vnodes while"
                                    + " it opens; the origin's task waits for its shipments. Also"
                                    + " how many vnodes a subtask restores at once when the job"
                                    + " restarts (failover, restore from a checkpoint or"
                                    + " savepoint): downloads, fetches from replicas and opens."
                                    + " Per gate subtask.");

    /** Memory a target gate holds the records of moving vnodes in before it spills them. */
    public static final ConfigOption<MemorySize> HANDOVER_BUFFER_MAX_MEMORY =
            ConfigOptions.key("rhino.handover.buffer.max-memory")
                    .memoryType()
                    .defaultValue(MemorySize.ofMebiBytes(64))
                    .withDescription(
                            "How many bytes of serialized records a target gate holds in memory"
                                    + " while it waits for the state of vnodes moving to it (their"
                                    + " records arrive before the state). Records beyond it go to"
                                    + " a file in the TaskManager's spilling directories and are"
                                    + " read back when the state is installed, so a slow install"
                                    + " never exhausts the heap. Per gate subtask; the in-memory"
                                    + " buffer may grow to about twice this while it fills.");

    /** How often routers report their per-vnode record counts and gates their state sizes. */
    public static final ConfigOption<Duration> LOAD_REPORT_INTERVAL =
            ConfigOptions.key("rhino.load.report-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription(
                            "How often each router reports how many records it routed to each "
                                    + "vnode, and each gate the state size of the vnodes it owns, "
                                    + "to the JobManager. These reports are the load the REST API "
                                    + "shows and the rebalance and auto-balance policies use.");

    /** The sliding window over which a vnode's records per second are averaged. */
    public static final ConfigOption<Duration> LOAD_WINDOW =
            ConfigOptions.key("rhino.load.window")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(60))
                    .withDescription(
                            "The sliding window over which a vnode's records per second are "
                                    + "averaged. Longer windows smooth bursts; shorter ones react "
                                    + "faster after a skew changes.");

    /** Whether the JobManager serves Rhino's REST API. */
    public static final ConfigOption<Boolean> REST_ENABLED =
            ConfigOptions.key("rhino.rest.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether the JobManager serves Rhino's REST API (one server per "
                                    + "JobManager process, started with the first Rhino operator "
                                    + "and stopped with the last). The Java API works either way.");

    /** The address the REST server binds to. */
    public static final ConfigOption<String> REST_BIND_ADDRESS =
            ConfigOptions.key("rhino.rest.bind-address")
                    .stringType()
                    .defaultValue("127.0.0.1")
                    .withDescription(
                            "The address Rhino's REST server binds to. Only loopback by default; "
                                    + "binding any other address without 'rhino.rest.auth-token' "
                                    + "logs a warning, since anyone who reaches it can move state.");

    /** The port the REST server listens on. */
    public static final ConfigOption<Integer> REST_PORT =
            ConfigOptions.key("rhino.rest.port")
                    .intType()
                    .defaultValue(8082)
                    .withDescription(
                            "The port of Rhino's REST server; 0 picks a free port, which is "
                                    + "logged. If another socket holds the port the server "
                                    + "does not start (logged as an error), the job runs on, "
                                    + "and the port is tried again every 2 s while a Rhino job "
                                    + "runs on the JobManager.");

    /** The bearer token REST clients must present. */
    public static final ConfigOption<String> REST_AUTH_TOKEN =
            ConfigOptions.key("rhino.rest.auth-token")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "If set, every REST request about this job must carry the header "
                                    + "'Authorization: Bearer <token>' (the scheme in any case); "
                                    + "requests without it are answered 401. Each job has its own "
                                    + "token: on a session cluster a job's operators are reachable "
                                    + "only with that job's token.");

    /** How long a REST connection may stay open without traffic. */
    public static final ConfigOption<Duration> REST_IDLE_TIMEOUT =
            ConfigOptions.key("rhino.rest.idle-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "A REST connection that neither sends nor receives anything for this "
                                    + "long is closed. Taken from the job that starts the "
                                    + "JobManager's REST server.");

    /** How long a REST client may take to send one request, from its first byte to its last. */
    public static final ConfigOption<Duration> REST_REQUEST_TIMEOUT =
            ConfigOptions.key("rhino.rest.request-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription(
                            "A REST request that has not arrived whole this long after its first "
                                    + "byte (a slow or stalled client) is answered 408 and its "
                                    + "connection closed. Taken from the job that starts the "
                                    + "JobManager's REST server.");

    /** How many REST connections may be open at once. */
    public static final ConfigOption<Integer> REST_MAX_CONNECTIONS =
            ConfigOptions.key("rhino.rest.max-connections")
                    .intType()
                    .defaultValue(64)
                    .withDescription(
                            "The most REST connections open at once; a request on a connection "
                                    + "beyond it is answered 503 and the connection closed (one "
                                    + "that sends nothing is closed after "
                                    + "'rhino.rest.request-timeout'). "
                                    + "Taken from the job that starts the JobManager's REST "
                                    + "server.");

    /** Where reconfiguration requests are recorded for the JobManager that takes over. */
    public static final ConfigOption<String> REST_REQUEST_JOURNAL_DIR =
            ConfigOptions.key("rhino.rest.request-journal.dir")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A directory every JobManager of the job reaches (a path of Flink's "
                                    + "file systems, e.g. hdfs:///flink/rhino-requests or the "
                                    + "checkpoint storage's bucket) where Rhino records each "
                                    + "reconfiguration request it accepts, once accepted and once "
                                    + "ended, under <dir>/<job id>/. After a JobManager failover "
                                    + "(high availability) the new JobManager answers GET for "
                                    + "the earlier one's requests, follows a restart-based "
                                    + "rescale on to its end under the same request id, and "
                                    + "reports a live handover that was still running as failed "
                                    + "with the JobManager. It keeps the newest 1000 requests of "
                                    + "a job and never deletes <dir>/<job id>/ itself (a "
                                    + "JobManager cannot tell a job's end from a failover): "
                                    + "delete it once the job ended. Unset: requests live in the "
                                    + "JobManager's memory only and end with it.");

    /** Flink's REST endpoint, for rescales past the deployed parallelism. */
    public static final ConfigOption<String> RESCALE_FLINK_REST_ADDRESS =
            ConfigOptions.key("rhino.rescale.flink-rest-address")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The REST endpoint of the job's Flink JobManager, as http://host:port "
                                    + "or https://host:port (e.g. http://localhost:8081). A "
                                    + "rescale request past the deployed parallelism with "
                                    + "\"allow-restart\": true asks Flink there for the new "
                                    + "parallelism (PUT /jobs/<job>/resource-requirements, which "
                                    + "needs 'jobmanager.scheduler: adaptive'). Unset: such a "
                                    + "request is refused and names this option.");

    /** How long a restart-based rescale may take. */
    public static final ConfigOption<Duration> RESCALE_RESTART_TIMEOUT =
            ConfigOptions.key("rhino.rescale.restart-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(10))
                    .withDescription(
                            "How long a rescale with \"allow-restart\": true may take from the "
                                    + "request until the operator runs at the asked parallelism "
                                    + "(the adaptive scheduler waits for a checkpoint, its "
                                    + "rescale interval and free slots). Past it the request is "
                                    + "FAILED with the parallelism reached; the raised upper "
                                    + "bound stays, so Flink may still rescale later.");

    /** Whether the auto-balancer rebalances skewed operators by itself. */
    public static final ConfigOption<Boolean> BALANCER_AUTO =
            ConfigOptions.key("rhino.balancer.auto")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Whether each Rhino operator rebalances itself: when its max/mean "
                                    + "subtask load stays above 'rhino.balancer.max-imbalance' "
                                    + "for 'rhino.balancer.interval', it moves the fewest vnodes "
                                    + "that bring the ratio under it, then waits "
                                    + "'rhino.balancer.cooldown'. Every decision is logged and "
                                    + "counted in the operator's metrics.");

    /** How long an imbalance must last before the auto-balancer acts. */
    public static final ConfigOption<Duration> BALANCER_INTERVAL =
            ConfigOptions.key("rhino.balancer.interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(60))
                    .withDescription(
                            "How long the imbalance must stay above the threshold before the "
                                    + "auto-balancer rebalances.");

    /** The max/mean subtask load ratio above which an operator counts as imbalanced. */
    public static final ConfigOption<Double> BALANCER_MAX_IMBALANCE =
            ConfigOptions.key("rhino.balancer.max-imbalance")
                    .doubleType()
                    .defaultValue(1.2)
                    .withDescription(
                            "The ratio of the most loaded active subtask's records per second to "
                                    + "the mean above which an operator is imbalanced; also the "
                                    + "default goal of a rebalance requested over REST. At least "
                                    + "1.");

    /** How long the auto-balancer waits after a rebalance. */
    public static final ConfigOption<Duration> BALANCER_COOLDOWN =
            ConfigOptions.key("rhino.balancer.cooldown")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription(
                            "How long the auto-balancer waits after a rebalance of an operator "
                                    + "(its own or one requested over REST) before it considers "
                                    + "that operator again, so the new loads can settle.");

    /** The busy time from which an imbalance is worth a rebalance. */
    public static final ConfigOption<Double> BALANCER_MIN_BUSY_TIME =
            ConfigOptions.key("rhino.balancer.min-busy-time")
                    .doubleType()
                    .defaultValue(0.0)
                    .withDescription(
                            "Milliseconds per second (Flink's busyTimeMsPerSecond, 0..1000) the"
                                    + " busiest active subtask of an operator must be busy for the"
                                    + " auto-balancer to act on its imbalance: below it every"
                                    + " subtask has time to spare and evening the load gains"
                                    + " nothing. 0 acts on the imbalance alone.");

    /** Whether and where vnode checkpoints are replicated. */
    public static final ConfigOption<String> REPLICATION_MODE =
            ConfigOptions.key("rhino.replication.mode")
                    .stringType()
                    .defaultValue("none")
                    .withDescription(
                            "'none': vnode state lives in the checkpoint storage only, and"
                                    + " handovers need origin and target TaskManagers on one"
                                    + " machine. 'peers': at every checkpoint each vnode's new"
                                    + " files are chain-replicated to 'rhino.replication.factor'"
                                    + " - 1 other TaskManagers' replica directories, the"
                                    + " checkpoint completes only once every copy is stored and"
                                    + " verified, and handovers between TaskManagers send only"
                                    + " what the target lacks. 'dfs' (RhinoDFS): handovers ship"
                                    + " each vnode through 'rhino.replication.dfs.path' on a"
                                    + " distributed filesystem, between any TaskManagers.");

    /** Where RhinoDFS ships vnodes. */
    public static final ConfigOption<String> REPLICATION_DFS_PATH =
            ConfigOptions.key("rhino.replication.dfs.path")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "With 'rhino.replication.mode: dfs', a filesystem URI every"
                                    + " TaskManager can reach (e.g. hdfs://namenode:8020/rhino,"
                                    + " s3://bucket/rhino) under which a handover's origin uploads"
                                    + " the moving vnodes and the target downloads them; each"
                                    + " handover's files are deleted once installed.");

    /** Copies of each vnode's checkpoint, the primary included. */
    public static final ConfigOption<Integer> REPLICATION_FACTOR =
            ConfigOptions.key("rhino.replication.factor")
                    .intType()
                    .defaultValue(2)
                    .withDescription(
                            "Copies of each vnode checkpoint including the primary (the subtask's"
                                    + " own TaskManager): 2 keeps one copy on another TaskManager."
                                    + " With fewer TaskManagers, as many as there are.");

    /** The address the replication service binds to. */
    public static final ConfigOption<String> REPLICATION_BIND_HOST =
            ConfigOptions.key("rhino.replication.bind-host")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The address each TaskManager's replication service listens on and"
                                    + " is reached at. Defaults to the TaskManager's own address"
                                    + " (taskmanager.host / bind-host), else 127.0.0.1. Set in a"
                                    + " TaskManager's own configuration, it wins over the job's.");

    /** The port or port range of the replication service. */
    public static final ConfigOption<String> REPLICATION_PORT =
            ConfigOptions.key("rhino.replication.port")
                    .stringType()
                    .defaultValue("0")
                    .withDescription(
                            "Port of the replication service: a number, a range such as"
                                    + " '50100-50200' (the first free one is taken, as several"
                                    + " TaskManagers may share a host), or 0 for any free port."
                                    + " Set in a TaskManager's own configuration, it wins over the"
                                    + " job's.");

    /** The replica directory (the paper's dedicated disk). */
    public static final ConfigOption<String> REPLICATION_DIR =
            ConfigOptions.key("rhino.replication.dir")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Directory for the replicas this TaskManager keeps (ideally its own"
                                    + " disk); each TaskManager uses a subdirectory named after"
                                    + " itself. Defaults to 'rhino-replicas' in the first"
                                    + " TaskManager temporary directory. Set in a TaskManager's own"
                                    + " configuration (one disk per host), it wins over the"
                                    + " job's.");

    /** The secret replication peers share. */
    public static final ConfigOption<String> REPLICATION_SECRET =
            ConfigOptions.key("rhino.replication.secret")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The secret a Rhino operator's replication peers prove they know"
                                    + " (HMAC challenges both ways: the connecting and the"
                                    + " accepting side each prove it; never sent). Unset, every"
                                    + " Rhino operator gets a random secret of its own when the"
                                    + " job is built, carried to its tasks in the job graph:"
                                    + " replication is authenticated without set-up. Either way a"
                                    + " peer works only in the scope of one job's operator (its"
                                    + " replicas' path prefix) and touches no other's replicas."
                                    + " Set it to keep the secret out of the job graph's default"
                                    + " generation, e.g. from a secret store; see"
                                    + " docs/architecture.md, 'Bounded before trust'.");

    /** Mutual TLS between replication peers. */
    public static final ConfigOption<Boolean> REPLICATION_SSL_ENABLED =
            ConfigOptions.key("rhino.replication.ssl.enabled")
                    .booleanType()
                    .noDefaultValue()
                    .withDescription(
                            "Mutual TLS between replication peers, with the stores of Flink's"
                                    + " internal SSL read from each TaskManager's configuration:"
                                    + " security.ssl.internal.keystore, -keystore-password,"
                                    + " -key-password, -keystore-type, -truststore,"
                                    + " -truststore-password, -truststore-type (or their"
                                    + " security.ssl.* fallbacks), security.ssl.protocol and"
                                    + " security.ssl.algorithms. A peer must present a certificate"
                                    + " the other's trust store accepts. Defaults to"
                                    + " security.ssl.internal.enabled; set on every TaskManager"
                                    + " alike. With TLS, files are encrypted in the JVM instead of"
                                    + " sent from the page cache (more CPU per replicated byte).");

    /** How long one step of replication may take. */
    public static final ConfigOption<Duration> REPLICATION_TIMEOUT =
            ConfigOptions.key("rhino.replication.timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(2))
                    .withDescription(
                            "How long one step of replication may take: a vnode's new files"
                                    + " or its listing at a checkpoint, a vnode's shipment in a"
                                    + " handover, a fetch in a restore, each file on the wire. A"
                                    + " checkpoint's step beyond it declines that checkpoint and"
                                    + " the job runs on; the files the whole chain stored stay, and"
                                    + " the next checkpoint sends the rest.");

    /** How long a replication connection may take to authenticate, both ways. */
    public static final ConfigOption<Duration> REPLICATION_HANDSHAKE_TIMEOUT =
            ConfigOptions.key("rhino.replication.handshake-timeout")
                    .durationType()
                    .defaultValue(ReplicationLimits.DEFAULTS.handshakeTimeout())
                    .withDescription(
                            "How long a connection to or from a TaskManager's replication port may"
                                    + " take to authenticate (both peers prove the secret); a peer"
                                    + " that takes longer is disconnected, and counted in"
                                    + " rhinoReplicationRefusedRequests. A TaskManager's own"
                                    + " configuration wins over the job's, as for the other"
                                    + " limits of its replication service.");

    /** How long a replication connection may send nothing before it is closed. */
    public static final ConfigOption<Duration> REPLICATION_IDLE_TIMEOUT =
            ConfigOptions.key("rhino.replication.idle-timeout")
                    .durationType()
                    .defaultValue(ReplicationLimits.DEFAULTS.idleTimeout())
                    .withDescription(
                            "How long an accepted replication connection may send nothing before"
                                    + " the TaskManager closes it (a peer that is stuck or"
                                    + " withholds a frame's body). At least twice"
                                    + " rhino.replication.timeout is used: a stream waiting for"
                                    + " credit from a slow member sends nothing meanwhile. A"
                                    + " sender closes its own unused connections after half of"
                                    + " it.");

    /** Replication connections a TaskManager accepts at once. */
    public static final ConfigOption<Integer> REPLICATION_MAX_CONNECTIONS =
            ConfigOptions.key("rhino.replication.max-connections")
                    .intType()
                    .defaultValue(ReplicationLimits.DEFAULTS.maxConnections())
                    .withDescription(
                            "How many connections a TaskManager's replication port accepts at"
                                    + " once; more are closed on arrival and counted in"
                                    + " rhinoReplicationRefusedRequests. Each peer TaskManager"
                                    + " holds a few (rhino.replication.streams-per-peer does not"
                                    + " add connections).");

    /** Streams and fetches one replication connection may have open at once. */
    public static final ConfigOption<Integer> REPLICATION_MAX_STREAMS_PER_CONNECTION =
            ConfigOptions.key("rhino.replication.max-streams-per-connection")
                    .intType()
                    .defaultValue(ReplicationLimits.DEFAULTS.maxStreamsPerConnection())
                    .withDescription(
                            "How many files (streams and fetches) one replication connection may"
                                    + " have open at once at the receiving TaskManager, each"
                                    + " holding an open file there; more are refused. A handover"
                                    + " sends all of a vnode's files at once, and several"
                                    + " handovers may go to one TaskManager.");

    /** The largest file a replication peer may announce. */
    public static final ConfigOption<MemorySize> REPLICATION_MAX_FILE_SIZE =
            ConfigOptions.key("rhino.replication.max-file-size")
                    .memoryType()
                    .defaultValue(new MemorySize(ReplicationLimits.DEFAULTS.maxFileBytes()))
                    .withDescription(
                            "The largest file a peer may announce to a TaskManager's replication"
                                    + " port (a file larger than the replica directory's free"
                                    + " space is refused as well). Raise it only for RocksDB"
                                    + " files larger than the default.");

    /** How many of its own files a TaskManager sends at once to each peer that passes them on. */
    public static final ConfigOption<Integer> REPLICATION_STREAMS_PER_PEER =
            ConfigOptions.key("rhino.replication.streams-per-peer")
                    .intType()
                    .defaultValue(ReplicationConfig.DEFAULT_STREAMS_PER_PEER)
                    .withDescription(
                            "How many of its own files a TaskManager replicates at once to each"
                                    + " peer that passes them on down a chain (factor 3 and more);"
                                    + " the others of a checkpoint wait their turn. Each member"
                                    + " that passes a file on holds up to 1 MiB of it in direct"
                                    + " memory while the next member is slower, so a member holds"
                                    + " at most this many MiB per TaskManager whose files it"
                                    + " passes on. Raise it for links with a large"
                                    + " bandwidth-delay product.");

    /** How long a TaskManager keeps a job's replicas once the job's last Rhino task there ended. */
    public static final ConfigOption<Duration> REPLICATION_RETAIN_AFTER_TASKS =
            ConfigOptions.key("rhino.replication.retain-after-tasks")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription(
                            "How long a TaskManager keeps a job's replicas after the job's last"
                                    + " Rhino task on it ended. A job restarting after a failure"
                                    + " within this time restores its vnodes from the replicas on"
                                    + " the TaskManagers its subtasks land on, instead of"
                                    + " downloading them from the checkpoint storage; replicas of"
                                    + " a job that does not come back are deleted then. 0 deletes"
                                    + " them at once.");

    /** How long a TaskManager whose replica store ran out of space stays out of replica chains. */
    public static final ConfigOption<Duration> REPLICATION_FULL_STORE_BACKOFF =
            ConfigOptions.key("rhino.replication.full-store-backoff")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription(
                            "How long a TaskManager whose replica store ran out of space is left"
                                    + " out of every replica chain. The checkpoint whose"
                                    + " replication hit the full disk is declined (it counts"
                                    + " towards Flink's"
                                    + " execution.checkpointing.tolerable-failed-checkpoints);"
                                    + " the next ones replicate to the other TaskManagers. The"
                                    + " TaskManager's own subtasks keep replicating, and its"
                                    + " existing replicas stay intact. After this time it is"
                                    + " tried again.");

    /** Whether a restore from replicas checks their files before opening the vnodes. */
    public static final ConfigOption<Boolean> REPLICATION_RESTORE_CHECK_BEFORE_OPEN =
            ConfigOptions.key("rhino.replication.restore.check-before-open")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether a subtask that restores vnodes from the replicas on its"
                                    + " TaskManager reads each replica file to compare it with the"
                                    + " checksum it was stored with before opening the vnode"
                                    + " (true), or opens the vnodes at once and checks their files"
                                    + " right after, on a thread of its own, while the subtask"
                                    + " processes (false). Nothing damaged is processed either"
                                    + " way: RocksDB checks every block it reads. With false, a"
                                    + " damaged file found by the check is deleted and fails the"
                                    + " restored task once; the next restore takes the vnode from"
                                    + " the checkpoint storage. false shortens the restore by the"
                                    + " time to read the replica, but the subtask then catches up"
                                    + " reading its state from a cold disk, which the check before"
                                    + " the open had brought into the page cache: on the network"
                                    + " bed at 10 GB it made the recovery slower (see"
                                    + " docs/benchmarks.md); try it where replicas stay in the"
                                    + " page cache or disks serve random reads fast.");

    private RhinoOptions() {}
}
