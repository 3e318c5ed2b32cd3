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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** {@link HdfsProcess} on a {@link NetworkBed} host: the checkpoint storage of a bed's cluster. */
public final class BedHdfs implements AutoCloseable {

    /** The NameNode's port; the host's namespace is its own, so a fixed port is free. */
    public static final int PORT = 8020;

    private final FlinkProcess process;
    private final String uri;

    private BedHdfs(FlinkProcess process, String uri) {
        this.process = process;
        this.uri = uri;
    }

    /**
     * Starts HDFS on {@code host}, with its data under {@code directory}, and waits until it is up.
     */
    public static BedHdfs start(NetworkBed.Host host, Path directory) throws Exception {
        Files.createDirectories(directory);
        Path ready = directory.resolve("ready");
        FlinkProcess process =
                FlinkProcess.startJava(
                        "hdfs",
                        directory,
                        host.launcher(),
                        HdfsProcess.class.getName(),
                        List.of("-Xmx512m", "-XX:+UseSerialGC"),
                        List.of(
                                host.address(),
                                String.valueOf(PORT),
                                directory.resolve("data").toString(),
                                ready.toString()));
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!Files.exists(ready)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.close();
                throw new IOException(
                        "HDFS on "
                                + host
                                + " did not start; see "
                                + directory.resolve("hdfs.out")
                                + " and hdfs.log");
            }
            Thread.sleep(200);
        }
        return new BedHdfs(process, Files.readString(ready).strip());
    }

    /** {@code hdfs://<address>:<port>}. */
    public String uri() {
        return uri;
    }

    /** The NameNode and DataNode's log. */
    public Path log() {
        return process.log();
    }

    @Override
    public void close() throws InterruptedException {
        process.close();
    }

    @Override
    public String toString() {
        return "HDFS " + uri + " (" + process + ")";
    }
}
