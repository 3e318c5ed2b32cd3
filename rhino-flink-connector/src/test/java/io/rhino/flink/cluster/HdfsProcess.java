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

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A one-machine HDFS in its own process: a NameNode and a DataNode, Hadoop's own classes, every
 * port bound to one address (a {@link NetworkBed} host's), so clients on other hosts reach both
 * across the bed's links. Unlike {@code MiniDFSCluster}, which binds 127.0.0.1.
 *
 * <p>Arguments: the address, the NameNode's port, a directory for its metadata and blocks, and a
 * file to write the file system's URI to once the DataNode registered and safe mode ended.
 */
public final class HdfsProcess {

    private static final Logger LOG = LoggerFactory.getLogger(HdfsProcess.class);

    private HdfsProcess() {}

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable e) {
            LOG.error("HDFS failed", e);
            // Hadoop's non-daemon threads would keep a half-started process alive
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        // a format and a NameNode in one JVM register the same metrics sources, as in
        // MiniDFSCluster
        DefaultMetricsSystem.setMiniClusterMode(true);
        String address = args[0];
        int port = Integer.parseInt(args[1]);
        Path directory = Path.of(args[2]);
        Path ready = Path.of(args[3]);
        String uri = "hdfs://" + address + ":" + port;
        Configuration conf = new HdfsConfiguration();
        conf.set("fs.defaultFS", uri);
        conf.set("hadoop.tmp.dir", directory.resolve("tmp").toString());
        conf.set(DFSConfigKeys.DFS_NAMENODE_RPC_ADDRESS_KEY, address + ":" + port);
        conf.set(DFSConfigKeys.DFS_NAMENODE_HTTP_ADDRESS_KEY, address + ":0");
        conf.set(
                DFSConfigKeys.DFS_NAMENODE_NAME_DIR_KEY,
                directory.resolve("name").toUri().toString());
        conf.set(
                DFSConfigKeys.DFS_DATANODE_DATA_DIR_KEY,
                directory.resolve("data").toUri().toString());
        conf.set(DFSConfigKeys.DFS_DATANODE_ADDRESS_KEY, address + ":0");
        conf.set(DFSConfigKeys.DFS_DATANODE_HTTP_ADDRESS_KEY, address + ":0");
        conf.set(DFSConfigKeys.DFS_DATANODE_IPC_ADDRESS_KEY, address + ":0");
        conf.set(DFSConfigKeys.DFS_DATANODE_HOST_NAME_KEY, address);
        conf.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, 1);
        conf.setInt(DFSConfigKeys.DFS_NAMENODE_SAFEMODE_EXTENSION_KEY, 0);
        conf.setLong(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
        conf.setBoolean(DFSConfigKeys.DFS_PERMISSIONS_ENABLED_KEY, false);
        NameNode.format(conf);
        NameNode nameNode = NameNode.createNameNode(new String[0], conf);
        DataNode dataNode = DataNode.createDataNode(new String[0], conf);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    dataNode.shutdown();
                                    nameNode.stop();
                                    stopped.countDown();
                                }));
        while (nameNode.getNamesystem().getNumLiveDataNodes() < 1 || nameNode.isInSafeMode()) {
            Thread.sleep(100);
        }
        Path written = ready.resolveSibling(ready.getFileName() + ".tmp");
        Files.writeString(written, uri, StandardCharsets.UTF_8);
        Files.move(written, ready, StandardCopyOption.ATOMIC_MOVE);
        LOG.info("HDFS up at {}: NameNode and DataNode on {}", uri, address);
        stopped.await();
    }
}
