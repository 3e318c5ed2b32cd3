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

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The records of one job's reconfiguration requests, in a directory every JobManager of the job
 * reaches: {@code <request-id>.started.json} once a request was accepted, {@code
 * <request-id>.ended.json} once it ended. Each is written under a temporary name and renamed, so a
 * JobManager lost while writing leaves no half record under either name.
 */
final class RequestJournal {

    private static final Logger LOG = LoggerFactory.getLogger(RequestJournal.class);

    /** Which record of a request. */
    enum Record {
        STARTED(".started.json"),
        ENDED(".ended.json");

        private final String suffix;

        Record(String suffix) {
            this.suffix = suffix;
        }
    }

    // the request ids Reconfigurer accepts; a file name is one of them and a suffix, never . or ..
    private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern JOB_ID = Pattern.compile("[0-9a-f]{32}");
    private static final String TEMPORARY = ".tmp-";
    private static final int MAX_RECORD_BYTES = 1 << 20;

    private final Path directory;

    /** The journal of {@code jobId} under {@code root}. */
    RequestJournal(Path root, String jobId) {
        if (!JOB_ID.matcher(jobId).matches()) {
            throw new IllegalArgumentException("not a Flink job id: '" + jobId + "'");
        }
        this.directory = new Path(root, jobId);
    }

    Path directory() {
        return directory;
    }

    /** Writes a request's record, replacing an earlier one of the same kind. */
    void write(String requestId, Record record, JsonNode content) throws IOException {
        checkRequestId(requestId);
        FileSystem fs = directory.getFileSystem();
        fs.mkdirs(directory);
        Path target = new Path(directory, requestId + record.suffix);
        Path temporary = new Path(directory, TEMPORARY + UUID.randomUUID());
        try (FSDataOutputStream out = fs.create(temporary, FileSystem.WriteMode.NO_OVERWRITE)) {
            out.write(Json.MAPPER.writeValueAsBytes(content));
        }
        fs.delete(target, false); // some file systems (HDFS) rename onto no existing file
        if (!fs.rename(temporary, target)) {
            fs.delete(temporary, false);
            throw new IOException("could not rename " + temporary + " to " + target);
        }
    }

    /**
     * Every request's latest readable record by request id, the ended one where both are readable.
     * A record that cannot be read (cut short, not JSON) is skipped with a warning that names it;
     * temporary files a lost JobManager left are deleted.
     */
    Map<String, JsonNode> latest() throws IOException {
        FileSystem fs = directory.getFileSystem();
        Map<String, JsonNode> latest = new LinkedHashMap<>();
        if (!fs.exists(directory)) {
            return latest;
        }
        FileStatus[] files = fs.listStatus(directory);
        if (files == null) {
            return latest;
        }
        for (Record record : Record.values()) { // ENDED after STARTED: it replaces it
            for (FileStatus file : files) {
                String name = file.getPath().getName();
                if (name.startsWith(TEMPORARY)) {
                    if (record == Record.STARTED) {
                        fs.delete(file.getPath(), false);
                    }
                    continue;
                }
                if (!name.endsWith(record.suffix)) {
                    continue;
                }
                String requestId = name.substring(0, name.length() - record.suffix.length());
                if (!REQUEST_ID.matcher(requestId).matches()) {
                    continue;
                }
                read(fs, file).ifPresent(content -> latest.put(requestId, content));
            }
        }
        return latest;
    }

    /** Deletes both records of a request. */
    void delete(String requestId) throws IOException {
        checkRequestId(requestId);
        FileSystem fs = directory.getFileSystem();
        for (Record record : Record.values()) {
            fs.delete(new Path(directory, requestId + record.suffix), false);
        }
    }

    private static Optional<JsonNode> read(FileSystem fs, FileStatus file) {
        if (file.getLen() > MAX_RECORD_BYTES) {
            LOG.warn(
                    "Skipping the request record {}: {} bytes, more than a record has ({})",
                    file.getPath(),
                    file.getLen(),
                    MAX_RECORD_BYTES);
            return Optional.empty();
        }
        try (InputStream in = fs.open(file.getPath())) {
            JsonNode content = Json.MAPPER.readTree(in);
            if (content == null || !content.isObject()) {
                throw new IOException("not a JSON object");
            }
            return Optional.of(content);
        } catch (IOException e) {
            LOG.warn(
                    "Skipping the request record {}, which cannot be read ({}); its request is not"
                            + " answered for. Delete the file if it stays so.",
                    file.getPath(),
                    e.toString());
            return Optional.empty();
        }
    }

    private static void checkRequestId(String requestId) {
        if (!REQUEST_ID.matcher(requestId).matches()) {
            throw new IllegalArgumentException("not a request id: '" + requestId + "'");
        }
    }
}
