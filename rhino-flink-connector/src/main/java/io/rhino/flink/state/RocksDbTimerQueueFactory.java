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

package io.rhino.flink.state;

import static io.rhino.flink.state.FlinkMembers.accessible;
import static io.rhino.flink.state.FlinkMembers.field;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.BitSet;
import java.util.Optional;
import javax.annotation.Nullable;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.KeyExtractorFunction;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.Keyed;
import org.apache.flink.runtime.state.PriorityComparable;
import org.apache.flink.runtime.state.PriorityComparator;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.runtime.state.heap.KeyGroupPartitionedPriorityQueue;
import org.apache.flink.state.rocksdb.RocksDBCachingPriorityQueueSet;
import org.apache.flink.state.rocksdb.RocksDBCachingPriorityQueueSet.OrderedByteArraySetCache;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.state.rocksdb.RocksDBPriorityQueueSetFactory;
import org.apache.flink.state.rocksdb.RocksDBWriteBatchWrapper;
import org.apache.flink.state.rocksdb.RocksIteratorWrapper;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates a vnode's part of a timer queue on its RocksDB instance as Flink's RocksDB timer queue,
 * reading the head of every key group with one RocksDB iterator.
 *
 * <p>Flink's {@code RocksDBPriorityQueueSetFactory} builds a queue whose constructor asks every key
 * group for its head, and each key group then opens its own iterator and fills its cache with up to
 * {@code state.backend.rocksdb.timer-service.cache-size} timers. For a vnode of 1,365 key groups
 * with a timer per record that read ~175,000 timers and took 190-1,350 ms per vnode of 170 MB, most
 * of a timer-heavy handover's install (docs/benchmarks.md, "Timer queues in the install"). Here one
 * iterator seeks each key group's first timer, and each key group's cache starts with that timer
 * alone: a valid cache, since it holds the smallest timers of its key group, which Flink's queue
 * refills from RocksDB once it is polled empty. The queue is Flink's own, on the same column family
 * and in the same byte layout, so checkpoints, savepoints and restores do not change.
 *
 * <p>A vnode moved by a handover needs not even the seeks: its origin's queue caches hold each key
 * group's first timer, which the export ships ({@link TimerQueueHeads}). At 20 GB of state a seek
 * per key group into the target's instance, whose blocks are not cached yet, took 0.5-1.6 s per
 * vnode of 2,048 key groups. Key groups the shipped heads do not know are still sought.
 *
 * <p>Flink exposes none of the pieces this needs; they are read from Flink 2.2.1's classes by
 * reflection. Where they are not there (another Flink version), the queue is created the way Flink
 * creates it, with a warning.
 */
final class RocksDbTimerQueueFactory {

    private static final Logger LOG = LoggerFactory.getLogger(RocksDbTimerQueueFactory.class);

    private static final Optional<FlinkInternals> INTERNALS = FlinkInternals.find();

    private RocksDbTimerQueueFactory() {}

    /** The vnode's part of the timer queue {@code name}, registering it on the instance if new. */
    static <K, T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> create(
                    CheckpointableKeyedStateBackend<K> vnodeBackend,
                    String name,
                    TypeSerializer<T> byteOrderedElementSerializer) {
        return create(vnodeBackend, name, byteOrderedElementSerializer, TimerQueueHeads.NONE);
    }

    /**
     * The vnode's part of the timer queue {@code name}, registering it on the instance if new; the
     * first timers of the key groups {@code shipped} knows are taken from it instead of RocksDB.
     */
    static <K, T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> create(
                    CheckpointableKeyedStateBackend<K> vnodeBackend,
                    String name,
                    TypeSerializer<T> byteOrderedElementSerializer,
                    TimerQueueHeads shipped) {
        if (INTERNALS.isPresent()
                && vnodeBackend instanceof RocksDBKeyedStateBackend<K> rocksdb
                && INTERNALS.get().factoryOf(rocksdb) instanceof RocksDBPriorityQueueSetFactory f) {
            try {
                return INTERNALS.get().create(f, name, byteOrderedElementSerializer, shipped);
            } catch (InvocationTargetException e) {
                // Flink's own failure, e.g. an incompatible timer serializer: keep its message
                if (e.getCause() instanceof RuntimeException cause) {
                    throw cause;
                }
                throw new IllegalStateException(
                        "Could not create the timer queue '" + name + "' of a vnode", e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(
                        "Could not create the timer queue '" + name + "' of a vnode", e);
            }
        }
        return vnodeBackend.create(name, byteOrderedElementSerializer);
    }

    /**
     * The first timer of each key group of a vnode's queue part as its caches hold them, without
     * reading RocksDB; null if the part is not Flink's RocksDB timer queue. Call where the part
     * does not change meanwhile (the task thread, or while it waits: a handover's export, a
     * checkpoint's synchronous part). Reads only the key groups {@code changed} holds (indices from
     * the part's first key group) and takes the others from {@code previous}, an earlier read of
     * the same part; reads all of them where either is null (see {@link TimerHeadsTracker}).
     */
    static TimerQueueHeads.KeyGroupHeads cachedHeadsOf(
            KeyGroupedInternalPriorityQueue<?> part,
            @Nullable TimerQueueHeads.KeyGroupHeads previous,
            @Nullable BitSet changed) {
        if (INTERNALS.isEmpty() || !(part instanceof KeyGroupPartitionedPriorityQueue<?, ?>)) {
            return null;
        }
        try {
            return INTERNALS.get().cachedHeads(part, previous, changed);
        } catch (ReflectiveOperationException e) {
            LOG.warn("Could not read the cached heads of a timer queue: {}", e.toString());
            return null;
        }
    }

    /** The package-private parts of Flink 2.2.1's RocksDB timer queue that this uses. */
    private static final class FlinkInternals {
        private final Method factoryOfBackend;
        private final Method registerQueue;
        private final Field keyGroupRange;
        private final Field keyGroupPrefixBytes;
        private final Field numberOfKeyGroups;
        private final Field db;
        private final Field readOptions;
        private final Field writeBatchWrapper;
        private final Field sharedElementOutView;
        private final Field sharedElementInView;
        private final Field cacheSize;
        private final Constructor<?> cache;
        private final Constructor<?> keyGroupSet;
        private final Field allElementsInCache;
        private final Field orderedCache;
        private final Field keyGroupedHeaps;
        private final Field firstKeyGroup;

        private FlinkInternals() throws ReflectiveOperationException {
            Class<?> factory = RocksDBPriorityQueueSetFactory.class;
            factoryOfBackend =
                    accessible(
                            RocksDBKeyedStateBackend.class.getDeclaredMethod(
                                    "getPriorityQueueFactory"));
            registerQueue =
                    accessible(
                            factory.getDeclaredMethod(
                                    "tryRegisterPriorityQueueMetaInfo",
                                    String.class,
                                    TypeSerializer.class,
                                    boolean.class));
            keyGroupRange = field(factory, "keyGroupRange");
            keyGroupPrefixBytes = field(factory, "keyGroupPrefixBytes");
            numberOfKeyGroups = field(factory, "numberOfKeyGroups");
            db = field(factory, "db");
            readOptions = field(factory, "readOptions");
            writeBatchWrapper = field(factory, "writeBatchWrapper");
            sharedElementOutView = field(factory, "sharedElementOutView");
            sharedElementInView = field(factory, "sharedElementInView");
            cacheSize = field(factory, "cacheSize");
            cache =
                    accessible(
                            Class.forName(
                                            "org.apache.flink.state.rocksdb.TreeOrderedSetCache",
                                            false,
                                            factory.getClassLoader())
                                    .getDeclaredConstructor(int.class));
            keyGroupSet =
                    accessible(
                            RocksDBCachingPriorityQueueSet.class.getDeclaredConstructor(
                                    int.class,
                                    int.class,
                                    RocksDB.class,
                                    ReadOptions.class,
                                    ColumnFamilyHandle.class,
                                    TypeSerializer.class,
                                    DataOutputSerializer.class,
                                    DataInputDeserializer.class,
                                    RocksDBWriteBatchWrapper.class,
                                    OrderedByteArraySetCache.class));
            allElementsInCache = field(RocksDBCachingPriorityQueueSet.class, "allElementsInCache");
            orderedCache = field(RocksDBCachingPriorityQueueSet.class, "orderedCache");
            keyGroupedHeaps = field(KeyGroupPartitionedPriorityQueue.class, "keyGroupedHeaps");
            firstKeyGroup = field(KeyGroupPartitionedPriorityQueue.class, "firstKeyGroup");
        }

        static Optional<FlinkInternals> find() {
            try {
                return Optional.of(new FlinkInternals());
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.warn(
                        "Flink's RocksDB timer queue is not the one of Flink 2.2.1 ({}); a vnode's"
                                + " timer queues are created as Flink creates them, reading up to"
                                + " the timer cache size of timers per key group up front",
                        e.toString());
                return Optional.empty();
            }
        }

        Object factoryOf(RocksDBKeyedStateBackend<?> backend) {
            try {
                return factoryOfBackend.invoke(backend);
            } catch (ReflectiveOperationException e) {
                return null;
            }
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
                KeyGroupedInternalPriorityQueue<T> create(
                        RocksDBPriorityQueueSetFactory factory,
                        String name,
                        TypeSerializer<T> serializer,
                        TimerQueueHeads shipped)
                        throws ReflectiveOperationException {
            ColumnFamilyHandle column =
                    ((RocksDBKeyedStateBackend.RocksDbKvStateInfo)
                                    registerQueue.invoke(factory, name, serializer, false))
                            .columnFamilyHandle;
            KeyGroupRange range = (KeyGroupRange) keyGroupRange.get(factory);
            int prefixBytes = keyGroupPrefixBytes.getInt(factory);
            RocksDB rocksDb = (RocksDB) db.get(factory);
            ReadOptions read = (ReadOptions) readOptions.get(factory);
            RocksDBWriteBatchWrapper writes =
                    (RocksDBWriteBatchWrapper) writeBatchWrapper.get(factory);
            long start = System.nanoTime();
            TimerQueueHeads.KeyGroupHeads known =
                    usable(name, shipped.of(name), range, prefixBytes);
            int[] sought = {0};
            byte[][] heads =
                    headsOf(rocksDb, column, read, writes, range, prefixBytes, known, sought);
            LOG.debug(
                    "Read the heads of timer queue {} in {} key groups in {} ms ({} shipped, {}"
                            + " sought in RocksDB)",
                    name,
                    heads.length,
                    (System.nanoTime() - start) / 1_000_000,
                    known == null ? 0 : known.known().cardinality(),
                    sought[0]);
            int firstKeyGroup = range.getStartKeyGroup();
            int size = cacheSize.getInt(factory);
            // the arguments of a key group's set between its key group and its cache
            Object[] shared = {
                prefixBytes,
                rocksDb,
                read,
                column,
                serializer,
                sharedElementOutView.get(factory),
                sharedElementInView.get(factory),
                writes
            };
            KeyGroupPartitionedPriorityQueue.PartitionQueueSetFactory<
                            T, RocksDBCachingPriorityQueueSet<T>>
                    sets =
                            (keyGroup, numKeyGroups, keyExtractor, comparator) ->
                                    (RocksDBCachingPriorityQueueSet<T>)
                                            keyGroupSet(
                                                    name,
                                                    keyGroup,
                                                    heads[keyGroup - firstKeyGroup],
                                                    size,
                                                    shared);
            return new KeyGroupPartitionedPriorityQueue<>(
                    KeyExtractorFunction.forKeyedObjects(),
                    PriorityComparator.forPriorityComparableObjects(),
                    sets,
                    range,
                    numberOfKeyGroups.getInt(factory));
        }

        /**
         * A key group's set whose cache starts with {@code head} alone; a key group without a head
         * is empty, so its empty cache lacks none of its timers.
         */
        private RocksDBCachingPriorityQueueSet<?> keyGroupSet(
                String queue, int keyGroup, byte[] head, int cacheSize, Object[] shared) {
            try {
                OrderedByteArraySetCache keyGroupCache =
                        (OrderedByteArraySetCache) cache.newInstance(cacheSize);
                if (head != null) {
                    keyGroupCache.add(head);
                }
                Object[] arguments = new Object[shared.length + 2];
                arguments[0] = keyGroup;
                System.arraycopy(shared, 0, arguments, 1, shared.length);
                arguments[arguments.length - 1] = keyGroupCache;
                RocksDBCachingPriorityQueueSet<?> set =
                        (RocksDBCachingPriorityQueueSet<?>) keyGroupSet.newInstance(arguments);
                allElementsInCache.setBoolean(set, head == null);
                return set;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(
                        "Could not create key group " + keyGroup + " of timer queue " + queue, e);
            }
        }

        /**
         * The first timer of each key group of a part, as its sets' caches hold them: a set whose
         * cache is empty holds no timer if it knows all its timers are cached, else it is unknown.
         */
        TimerQueueHeads.KeyGroupHeads cachedHeads(
                Object part,
                @Nullable TimerQueueHeads.KeyGroupHeads previous,
                @Nullable BitSet changed)
                throws ReflectiveOperationException {
            Object[] sets = (Object[]) keyGroupedHeaps.get(part);
            int first = firstKeyGroup.getInt(part);
            boolean partly =
                    previous != null
                            && changed != null
                            && previous.firstKeyGroup() == first
                            && previous.numberOfKeyGroups() == sets.length;
            byte[][] heads = partly ? previous.heads().clone() : new byte[sets.length][];
            BitSet known = partly ? (BitSet) previous.known().clone() : new BitSet(sets.length);
            BitSet toRead = changed;
            if (!partly) {
                toRead = new BitSet(sets.length);
                toRead.set(0, sets.length);
            }
            for (int i = toRead.nextSetBit(0);
                    i >= 0 && i < sets.length;
                    i = toRead.nextSetBit(i + 1)) {
                if (!(sets[i] instanceof RocksDBCachingPriorityQueueSet<?> set)) {
                    return null;
                }
                heads[i] = ((OrderedByteArraySetCache) orderedCache.get(set)).peekFirst();
                known.set(i, heads[i] != null || allElementsInCache.getBoolean(set));
            }
            return new TimerQueueHeads.KeyGroupHeads(first, heads, known);
        }

        /**
         * The shipped heads of the queue if they fit its key groups, else null (with a warning).
         */
        private static TimerQueueHeads.KeyGroupHeads usable(
                String name,
                TimerQueueHeads.KeyGroupHeads shipped,
                KeyGroupRange range,
                int prefixBytes) {
            if (shipped == null) {
                return null;
            }
            String problem = null;
            if (shipped.firstKeyGroup() != range.getStartKeyGroup()
                    || shipped.numberOfKeyGroups() != range.getNumberOfKeyGroups()) {
                problem =
                        "they are for key groups "
                                + shipped.firstKeyGroup()
                                + " to "
                                + (shipped.firstKeyGroup() + shipped.numberOfKeyGroups() - 1)
                                + ", the vnode has "
                                + range;
            } else {
                for (int keyGroup : range) {
                    byte[] head = shipped.head(keyGroup);
                    if (head != null
                            && (head.length < prefixBytes
                                    || CompositeKeySerializationUtils.extractKeyGroup(
                                                    prefixBytes, head)
                                            != keyGroup)) {
                        problem = "the head of key group " + keyGroup + " is not in it";
                        break;
                    }
                }
            }
            if (problem != null) {
                LOG.warn(
                        "Ignoring the shipped first timers of timer queue {}: {}; reading them"
                                + " from RocksDB",
                        name,
                        problem);
                return null;
            }
            return shipped;
        }

        /**
         * The first entry of each key group of the range in the column family (null where there is
         * none): those {@code known} holds taken from it, the others read with one iterator, a seek
         * per key group and none for key groups that a seek passed; counts the seeks in {@code
         * sought[0]}.
         */
        private static byte[][] headsOf(
                RocksDB db,
                ColumnFamilyHandle column,
                ReadOptions readOptions,
                RocksDBWriteBatchWrapper writes,
                KeyGroupRange range,
                int prefixBytes,
                TimerQueueHeads.KeyGroupHeads known,
                int[] sought) {
            byte[][] heads = new byte[range.getNumberOfKeyGroups()][];
            int first = range.getStartKeyGroup();
            BitSet toSeek = new BitSet(heads.length);
            toSeek.set(0, heads.length);
            if (known != null) {
                toSeek.andNot(known.known());
                for (int i = known.known().nextSetBit(0);
                        i >= 0;
                        i = known.known().nextSetBit(i + 1)) {
                    heads[i] = known.heads()[i];
                }
            }
            if (toSeek.isEmpty()) {
                return heads;
            }
            try {
                writes.flush();
            } catch (Exception e) {
                throw new IllegalStateException("Could not flush the timers' writes", e);
            }
            try (RocksIteratorWrapper iterator =
                    new RocksIteratorWrapper(db.newIterator(column, readOptions))) {
                // no key group below it holds an entry that a seek did not find
                int nextWithEntry = first;
                for (int i = toSeek.nextSetBit(0); i >= 0; i = toSeek.nextSetBit(i + 1)) {
                    int keyGroup = first + i;
                    if (keyGroup < nextWithEntry) {
                        continue; // a seek passed it: it holds no entry
                    }
                    sought[0]++;
                    iterator.seek(prefixOf(keyGroup, prefixBytes));
                    if (!iterator.isValid()) {
                        break;
                    }
                    byte[] key = iterator.key();
                    int found = CompositeKeySerializationUtils.extractKeyGroup(prefixBytes, key);
                    if (found == keyGroup) {
                        heads[i] = key;
                    } else {
                        nextWithEntry = found;
                    }
                }
            }
            return heads;
        }

        private static byte[] prefixOf(int keyGroup, int prefixBytes) {
            byte[] prefix = new byte[prefixBytes];
            for (int i = prefixBytes - 1, value = keyGroup; i >= 0; i--, value >>>= 8) {
                prefix[i] = (byte) value;
            }
            return prefix;
        }
    }
}
