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

package io.rhino.flink.cluster;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hosts with networks of their own on this machine: one Linux network namespace per host, each
 * joined to one bridge by a veth pair whose two ends are shaped with {@code tc} ({@link LinkShape}:
 * a rate and, where the kernel has {@code sch_netem}, a delay). The bridge's side of the machine
 * (the root namespace, where the test runs) has an address on the bridge too, so the test reaches
 * every host.
 *
 * <p>Everything a bed creates is named after its slot ({@code rnb<slot>}, subnet {@code
 * 10.213.<slot>.0/24}); a slot is held by an OS lock on a file under {@code /run/rhino-netbed} for
 * as long as the bed's JVM lives, so concurrent builds take different slots. {@link #close()} (also
 * run by a shutdown hook) kills what still runs in the bed's namespaces and deletes them, their
 * links and the bridge; {@link #up} first removes what beds of dead JVMs left behind (a slot whose
 * lock is free), so a crashed run costs nothing. A bed made by {@code bin/netbed up} is marked kept
 * and stays until {@code bin/netbed down}.
 *
 * <p>Faults: {@link #cut} takes a host's link down (its peers' packets to it, and its own, are
 * dropped; connections stay open until their timeouts, as with a pulled cable), {@link #heal}
 * brings it back, {@link #shape} changes its rate and delay.
 */
public final class NetworkBed implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NetworkBed.class);

    static final String PREFIX = "rnb";
    private static final int SLOTS = 32;
    private static final String KEPT = ".kept";
    private static final Pattern HOST_NAME = Pattern.compile("[a-z][a-z0-9]{0,7}");

    /** One host of the bed. */
    public record Host(String name, String namespace, String address, String link) {
        /** The command prefix that runs a program on this host. */
        public List<String> launcher() {
            return List.of("ip", "netns", "exec", namespace);
        }
    }

    private final int slot;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Map<String, Host> hosts = new LinkedHashMap<>();
    private final Map<String, LinkShape> shapes = new LinkedHashMap<>();
    private final LinkShape shape;
    private boolean netem;
    private Thread shutdownHook;
    private boolean closed;

    private NetworkBed(int slot, FileChannel lockChannel, FileLock lock, LinkShape shape) {
        this.slot = slot;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.shape = shape;
    }

    /**
     * Why no bed can be made here (not Linux, not root, no {@code ip} or {@code tc}, namespaces
     * refused), or empty if one can.
     */
    public static Optional<String> unavailable() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return Optional.of(
                    "network namespaces need Linux, this is " + System.getProperty("os.name"));
        }
        if (!isRoot()) {
            return Optional.of("network namespaces need root (ip netns add)");
        }
        for (String tool : List.of("ip", "tc")) {
            Shell.Result version = Shell.tryRun(tool, "-V");
            if (!version.ok()) {
                return Optional.of("no '" + tool + "' command: " + version.output().strip());
            }
        }
        String probe = PREFIX + "-probe-" + ProcessHandle.current().pid();
        Shell.Result added = Shell.tryRun("ip", "netns", "add", probe);
        if (!added.ok()) {
            return Optional.of("'ip netns add' refused: " + added.output().strip());
        }
        Shell.Result veth =
                Shell.tryRun(
                        "ip", "-n", probe, "link", "add", "p0", "type", "veth", "peer", "name",
                        "p1");
        Shell.tryRun("ip", "netns", "del", probe);
        if (!veth.ok()) {
            return Optional.of("veth pairs refused: " + veth.output().strip());
        }
        return Optional.empty();
    }

    /**
     * Creates a bed of {@code hostNames} (lower case letters and digits, at most 8), each link
     * shaped as {@code shape}, in a free slot.
     */
    public static NetworkBed up(List<String> hostNames, LinkShape shape) throws IOException {
        return up(hostNames, shape, false);
    }

    private static NetworkBed up(List<String> hostNames, LinkShape shape, boolean kept)
            throws IOException {
        for (String name : hostNames) {
            if (!HOST_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("host name " + name + ": [a-z][a-z0-9]{0,7}");
            }
        }
        removeLeftovers();
        NetworkBed bed = claimSlot(shape);
        try {
            if (kept) {
                Files.writeString(marker(bed.slot), "bin/netbed up\n");
            }
            bed.create(hostNames);
        } catch (IOException | RuntimeException e) {
            bed.close();
            throw e;
        }
        if (!kept) {
            bed.shutdownHook =
                    new Thread(bed::closeQuietly, "network-bed-" + bed.slot + "-cleanup");
            Runtime.getRuntime().addShutdownHook(bed.shutdownHook);
        }
        LOG.info(
                "Network bed {} up: {}, links {}",
                bed.prefix(),
                bed.hosts.values(),
                bed.describeShape());
        return bed;
    }

    private static NetworkBed claimSlot(LinkShape shape) throws IOException {
        Files.createDirectories(stateDirectory());
        for (int slot = 0; slot < SLOTS; slot++) {
            FileChannel channel =
                    FileChannel.open(
                            lockFile(slot), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = tryLock(channel);
            if (lock != null && !Files.exists(marker(slot))) {
                return new NetworkBed(slot, channel, lock, shape);
            }
            if (lock != null) {
                lock.release();
            }
            channel.close();
        }
        throw new IOException(
                "All " + SLOTS + " network bed slots are taken (" + stateDirectory() + ")");
    }

    private void create(List<String> hostNames) throws IOException {
        String bridge = prefix();
        Shell.run("ip", "link", "add", bridge, "type", "bridge");
        Shell.run("ip", "addr", "add", gatewayAddress() + "/24", "dev", bridge);
        Shell.run("ip", "link", "set", bridge, "up");
        int index = 0;
        for (String name : hostNames) {
            Host host =
                    new Host(
                            name,
                            prefix() + "-" + name,
                            subnet() + "." + (10 + index++),
                            prefix() + "-" + name);
            String inside = host.link() + "n";
            Shell.run("ip", "netns", "add", host.namespace());
            hosts.put(name, host);
            Shell.run("ip", "link", "add", host.link(), "type", "veth", "peer", "name", inside);
            Shell.run("ip", "link", "set", inside, "netns", host.namespace());
            Shell.run("ip", "-n", host.namespace(), "link", "set", inside, "name", "eth0");
            Shell.run(
                    "ip",
                    "-n",
                    host.namespace(),
                    "addr",
                    "add",
                    host.address() + "/24",
                    "dev",
                    "eth0");
            Shell.run("ip", "-n", host.namespace(), "link", "set", "eth0", "up");
            Shell.run("ip", "-n", host.namespace(), "link", "set", "lo", "up");
            Shell.run("ip", "link", "set", host.link(), "master", bridge);
            Shell.run("ip", "link", "set", host.link(), "up");
            if (index == 1) {
                probeNetem(host.link());
            }
            shape(name, shape);
        }
    }

    /** The bed's name: its bridge, and the prefix of its namespaces and links. */
    public String prefix() {
        return PREFIX + slot;
    }

    /** The root namespace's address on the bridge, where the test reaches the hosts from. */
    public String gatewayAddress() {
        return subnet() + ".1";
    }

    private String subnet() {
        return "10.213." + slot;
    }

    public Host host(String name) {
        Host host = hosts.get(name);
        if (host == null) {
            throw new IllegalArgumentException("no host " + name + " in " + hosts.keySet());
        }
        return host;
    }

    public List<Host> hosts() {
        return List.copyOf(hosts.values());
    }

    /**
     * A process cluster's placement: the JobManager on {@code jobManager}, TaskManager i on the
     * i-th.
     */
    public ClusterHosts clusterHosts(String jobManager, List<String> taskManagers) {
        Host jm = host(jobManager);
        List<Host> tms = taskManagers.stream().map(this::host).toList();
        return new ClusterHosts() {
            @Override
            public String jobManagerAddress() {
                return jm.address();
            }

            @Override
            public String taskManagerAddress(int index) {
                return tms.get(index).address();
            }

            @Override
            public List<String> jobManagerLauncher() {
                return jm.launcher();
            }

            @Override
            public List<String> taskManagerLauncher(int index) {
                return tms.get(index).launcher();
            }

            @Override
            public String toString() {
                return "network bed "
                        + prefix()
                        + ": JobManager on "
                        + jm
                        + ", TaskManagers on "
                        + tms;
            }
        };
    }

    /**
     * Shapes both ends of a host's link: netem's rate and delay where the kernel has it, else a
     * token bucket at the rate (without the delay, as logged when the bed came up).
     */
    public void shape(String name, LinkShape linkShape) throws IOException {
        Host host = host(name);
        List<String> qdisc = qdisc(linkShape);
        List<String> outside =
                new ArrayList<>(List.of("tc", "qdisc", "replace", "dev", host.link(), "root"));
        outside.addAll(qdisc);
        Shell.run(outside.toArray(String[]::new));
        List<String> inside =
                new ArrayList<>(
                        List.of(
                                "tc",
                                "-n",
                                host.namespace(),
                                "qdisc",
                                "replace",
                                "dev",
                                "eth0",
                                "root"));
        inside.addAll(qdisc);
        Shell.run(inside.toArray(String[]::new));
        shapes.put(name, linkShape);
    }

    /** Whether {@code link} takes a netem qdisc: many kernels are built without it. */
    private void probeNetem(String link) {
        Shell.Result added =
                Shell.tryRun("tc", "qdisc", "add", "dev", link, "root", "netem", "delay", "1ms");
        netem = added.ok();
        if (netem) {
            Shell.tryRun("tc", "qdisc", "del", "dev", link, "root");
        } else if (!shape.delay().isZero()) {
            LOG.warn(
                    "Network bed {}: the kernel has no netem qdisc ({}): links are shaped to their"
                            + " rate by a token bucket, without the {} us delay",
                    prefix(),
                    added.output().strip(),
                    shape.delay().toNanos() / 1_000);
        }
    }

    private List<String> qdisc(LinkShape linkShape) {
        if (netem && !linkShape.delay().isZero()) {
            return List.of(
                    "netem",
                    "delay",
                    linkShape.tcDelay(),
                    "rate",
                    linkShape.tcRate(),
                    "limit",
                    "100000");
        }
        return List.of(
                "tbf", "rate", linkShape.tcRate(), "burst", linkShape.tcBurst(), "latency", "50ms");
    }

    /** Whether the links' delay is applied (the kernel has {@code sch_netem}). */
    public boolean delayApplied() {
        return netem;
    }

    /** How the links are shaped, in words. */
    public String describeShape() {
        return shape.bitsPerSecond() / 1_000_000
                + " Mbit/s"
                + (netem
                        ? ", " + shape.delay().toNanos() / 1_000 + " us per end (netem)"
                        : ", no delay (no netem in this kernel; tbf)");
    }

    /** Cuts a host off: its link goes down, packets to and from it are dropped. */
    public void cut(String name) throws IOException {
        LOG.info("Network bed {}: cutting {} off", prefix(), host(name));
        Shell.run("ip", "link", "set", host(name).link(), "down");
    }

    /** Brings a cut host's link back. */
    public void heal(String name) throws IOException {
        LOG.info("Network bed {}: healing {}", prefix(), host(name));
        Shell.run("ip", "link", "set", host(name).link(), "up");
    }

    /** The bytes that crossed a host's link since the bed came up. */
    public LinkCounters counters(String name) throws IOException {
        Path statistics = Path.of("/sys/class/net", host(name).link(), "statistics");
        return new LinkCounters(
                Long.parseLong(Files.readString(statistics.resolve("rx_bytes")).strip()),
                Long.parseLong(Files.readString(statistics.resolve("tx_bytes")).strip()));
    }

    /** {@link #counters(String)} of every host, by name. */
    public Map<String, LinkCounters> counters() throws IOException {
        Map<String, LinkCounters> all = new LinkedHashMap<>();
        for (String name : hosts.keySet()) {
            all.put(name, counters(name));
        }
        return all;
    }

    /** Kills what still runs in the bed's namespaces, deletes them, their links and the bridge. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            remove(slot);
            Files.deleteIfExists(marker(slot));
            LOG.info("Network bed {} torn down", prefix());
        } finally {
            if (lock.isValid()) {
                lock.release();
            }
            lockChannel.close();
            if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(shutdownHook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs anyway
                }
            }
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("Network bed {} not torn down: {}", prefix(), e.toString());
        }
    }

    /**
     * Removes what beds of dead JVMs left: every slot whose lock is free and that is not kept by
     * {@code bin/netbed up}.
     *
     * @return the slots cleaned
     */
    public static List<Integer> removeLeftovers() throws IOException {
        return removeSlots(false);
    }

    private static List<Integer> removeSlots(boolean keptToo) throws IOException {
        Files.createDirectories(stateDirectory());
        List<Integer> cleaned = new ArrayList<>();
        List<String> namespaces = namespaces();
        List<String> links = links();
        for (int slot = 0; slot < SLOTS; slot++) {
            String prefix = PREFIX + slot;
            boolean present =
                    namespaces.stream().anyMatch(ns -> ns.startsWith(prefix + "-"))
                            || links.stream()
                                    .anyMatch(l -> l.equals(prefix) || l.startsWith(prefix + "-"));
            if (!present || (Files.exists(marker(slot)) && !keptToo)) {
                continue;
            }
            try (FileChannel channel =
                    FileChannel.open(
                            lockFile(slot), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                FileLock lock = tryLock(channel);
                if (lock == null) {
                    continue; // a live bed
                }
                try {
                    LOG.info("Removing network bed {}, left by a run that ended", prefix);
                    remove(slot);
                    Files.deleteIfExists(marker(slot));
                    cleaned.add(slot);
                } finally {
                    lock.release();
                }
            }
        }
        return cleaned;
    }

    private static void remove(int slot) throws IOException {
        String prefix = PREFIX + slot;
        for (String namespace : namespaces()) {
            if (!namespace.startsWith(prefix + "-")) {
                continue;
            }
            for (String pid :
                    Shell.tryRun("ip", "netns", "pids", namespace).output().split("\\s+")) {
                if (pid.matches("\\d+")) {
                    ProcessHandle.of(Long.parseLong(pid))
                            .ifPresent(
                                    process -> {
                                        LOG.warn(
                                                "Killing process {} left in namespace {}",
                                                process.pid(),
                                                namespace);
                                        process.destroyForcibly();
                                        process.onExit().join();
                                    });
                }
            }
            Shell.Result deleted = Shell.tryRun("ip", "netns", "del", namespace);
            if (!deleted.ok()) {
                LOG.warn("ip netns del {}: {}", namespace, deleted.output().strip());
            }
        }
        for (String link : links()) {
            if (link.equals(prefix) || link.startsWith(prefix + "-")) {
                Shell.tryRun("ip", "link", "del", link);
            }
        }
        List<String> left = new ArrayList<>();
        namespaces().stream().filter(ns -> ns.startsWith(prefix + "-")).forEach(left::add);
        links().stream()
                .filter(l -> l.equals(prefix) || l.startsWith(prefix + "-"))
                .forEach(left::add);
        if (!left.isEmpty()) {
            throw new IOException("Network bed " + prefix + " left " + left);
        }
    }

    /** The names of this machine's network namespaces. */
    static List<String> namespaces() {
        Shell.Result listed = Shell.tryRun("ip", "netns", "list");
        if (!listed.ok()) {
            return List.of();
        }
        return Arrays.stream(listed.output().split("\n"))
                .map(String::strip)
                .filter(line -> !line.isEmpty())
                .map(line -> line.split("\\s+")[0])
                .toList();
    }

    /** The names of the root namespace's links. */
    static List<String> links() {
        Shell.Result listed = Shell.tryRun("ip", "-o", "link", "show");
        if (!listed.ok()) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (String line : listed.output().split("\n")) {
            String[] fields = line.split(":\\s+", 3);
            if (fields.length >= 2) {
                String name = fields[1];
                int at = name.indexOf('@');
                names.add(at < 0 ? name : name.substring(0, at));
            }
        }
        return names;
    }

    /** Whether anything named like a bed of this slot's prefix is left. */
    public boolean leftOver() {
        String prefix = prefix();
        return namespaces().stream().anyMatch(ns -> ns.startsWith(prefix + "-"))
                || links().stream().anyMatch(l -> l.equals(prefix) || l.startsWith(prefix + "-"));
    }

    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException heldInThisJvm) {
            return null;
        }
    }

    private static Path stateDirectory() {
        return Path.of(System.getProperty("rhino.netbed.state-dir", "/run/rhino-netbed"));
    }

    private static Path lockFile(int slot) {
        return stateDirectory().resolve("slot-" + slot + ".lock");
    }

    private static Path marker(int slot) {
        return stateDirectory().resolve("slot-" + slot + KEPT);
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[1].equals("0");
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    @Override
    public String toString() {
        return "NetworkBed[" + prefix() + ", " + hosts.values() + "]";
    }

    /**
     * {@code up [hosts] [rate] [delay]} keeps a bed up until {@code down} (every bed not held by a
     * live JVM); {@code status} lists the beds, their hosts, qdiscs and counters.
     */
    public static void main(String[] args) throws IOException {
        String command = args.length == 0 ? "status" : args[0];
        switch (command) {
            case "up" -> {
                List<String> names =
                        List.of((args.length > 1 ? args[1] : "jm,tm0,tm1,tm2,hdfs").split(","));
                LinkShape linkShape =
                        new LinkShape(
                                args.length > 2
                                        ? LinkShape.parseRate(args[2])
                                        : LinkShape.DEFAULT.bitsPerSecond(),
                                args.length > 3
                                        ? LinkShape.parseDelay(args[3])
                                        : LinkShape.DEFAULT.delay());
                Optional<String> why = unavailable();
                if (why.isPresent()) {
                    System.err.println("No network bed here: " + why.get());
                    System.exit(2);
                }
                NetworkBed bed = up(names, linkShape, true);
                System.out.println(
                        "Network bed " + bed.prefix() + " up, links " + bed.describeShape());
                for (Host host : bed.hosts()) {
                    System.out.println(
                            "  "
                                    + host.name()
                                    + "  "
                                    + host.address()
                                    + "  run: ip netns exec "
                                    + host.namespace()
                                    + " <command>");
                }
                bed.lock.release();
                bed.lockChannel.close();
            }
            case "down" -> System.out.println("Removed network beds " + removeSlots(true));
            case "status" -> {
                for (String namespace : namespaces()) {
                    if (namespace.startsWith(PREFIX)) {
                        String link = namespace;
                        Path statistics = Path.of("/sys/class/net", link, "statistics");
                        String counters =
                                Files.isDirectory(statistics)
                                        ? "sent "
                                                + Files.readString(statistics.resolve("rx_bytes"))
                                                        .strip()
                                                + " B, received "
                                                + Files.readString(statistics.resolve("tx_bytes"))
                                                        .strip()
                                                + " B"
                                        : "no link";
                        System.out.println(
                                namespace
                                        + "  "
                                        + Shell.tryRun(
                                                        "ip", "-n", namespace, "-br", "addr",
                                                        "show", "eth0")
                                                .output()
                                                .strip()
                                        + "  "
                                        + Shell.tryRun("tc", "qdisc", "show", "dev", link)
                                                .output()
                                                .strip()
                                        + "  "
                                        + counters
                                        + "  pids "
                                        + Shell.tryRun("ip", "netns", "pids", namespace)
                                                .output()
                                                .strip()
                                                .replace('\n', ' '));
                    }
                }
            }
            default -> {
                System.err.println("usage: netbed up [hosts] [rate] [delay] | down | status");
                System.exit(1);
            }
        }
    }
}
