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

package io.rhino.benchmarks.studies;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.ExportImportFilesMetaData;
import org.rocksdb.ImportColumnFamilyOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBufferManager;

/**
 * One RocksDB instance with named column families, opened with the options Rhino's vnode instances
 * use (no fsync, 4 file-opening threads, no statistics read on open, a shared write buffer
 * manager), so that the layouts compared differ only in how state is split across instances and
 * column families.
 */
public final class LayoutInstance implements AutoCloseable {

    private final RocksDB db;
    private final DBOptions options;
    private final ColumnFamilyOptions columns;
    private final Map<String, ColumnFamilyHandle> families = new LinkedHashMap<>();
    private final ColumnFamilyHandle defaultFamily;

    private LayoutInstance(
            RocksDB db,
            DBOptions options,
            ColumnFamilyOptions columns,
            List<String> names,
            List<ColumnFamilyHandle> handles) {
        this.db = db;
        this.options = options;
        this.columns = columns;
        this.defaultFamily = handles.get(0);
        for (int i = 0; i < names.size(); i++) {
            families.put(names.get(i), handles.get(i + 1));
        }
    }

    /**
     * Opens (creating if missing) the instance at {@code dir} with {@code names} as families;
     * {@code buffers} may be null (no shared write buffer manager).
     */
    public static LayoutInstance open(
            Path dir, List<String> names, WriteBufferManager buffers, boolean atomicFlush)
            throws RocksDBException {
        DBOptions options =
                new DBOptions()
                        .setCreateIfMissing(true)
                        .setCreateMissingColumnFamilies(true)
                        .setUseFsync(false)
                        .setStatsDumpPeriodSec(0)
                        .setMaxBackgroundJobs(2)
                        .setMaxFileOpeningThreads(4)
                        .setSkipStatsUpdateOnDbOpen(true)
                        .setAtomicFlush(atomicFlush);
        if (buffers != null) {
            options.setWriteBufferManager(buffers);
        }
        ColumnFamilyOptions columns = new ColumnFamilyOptions().setArenaBlockSize(64 << 10);
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, columns));
        for (String name : names) {
            descriptors.add(new ColumnFamilyDescriptor(name.getBytes(), columns));
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try {
            RocksDB db = RocksDB.open(options, dir.toString(), descriptors, handles);
            return new LayoutInstance(db, options, columns, names, handles);
        } catch (RocksDBException e) {
            options.close();
            columns.close();
            throw e;
        }
    }

    public RocksDB db() {
        return db;
    }

    public ColumnFamilyHandle family(String name) {
        ColumnFamilyHandle handle = families.get(name);
        if (handle == null) {
            throw new IllegalArgumentException("No column family " + name + " in " + families);
        }
        return handle;
    }

    /** The named families, in their order. */
    public List<ColumnFamilyHandle> families() {
        return List.copyOf(families.values());
    }

    /** A native checkpoint of the whole instance (flushes every written family first). */
    public void checkpoint(Path dir) throws RocksDBException {
        try (Checkpoint checkpoint = Checkpoint.create(db)) {
            checkpoint.createCheckpoint(dir.toString());
        }
    }

    /** Exports one family's files to {@code dir} (hard links after a flush of that family). */
    ExportImportFilesMetaData export(String name, Path dir) throws RocksDBException {
        try (Checkpoint checkpoint = Checkpoint.create(db)) {
            return checkpoint.exportColumnFamily(family(name), dir.toString());
        }
    }

    /** Adds a family made of exported files, moving them into this instance. */
    void importFamily(String name, ExportImportFilesMetaData files) throws RocksDBException {
        try (ImportColumnFamilyOptions move = new ImportColumnFamilyOptions().setMoveFiles(true)) {
            families.put(
                    name,
                    db.createColumnFamilyWithImport(
                            new ColumnFamilyDescriptor(name.getBytes(), columns), move, files));
        }
    }

    /** Drops a family, as an origin does once a vnode has left. */
    void drop(String name) throws RocksDBException {
        ColumnFamilyHandle handle = family(name);
        db.dropColumnFamily(handle);
        handle.close();
        families.remove(name);
    }

    @Override
    public void close() {
        families.values().forEach(ColumnFamilyHandle::close);
        defaultFamily.close();
        db.close();
        options.close();
        columns.close();
    }
}
