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

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.Keyed;
import org.apache.flink.runtime.state.PriorityComparable;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.runtime.state.internal.InternalKvState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The states and timer queues an operator created on a vnode backend, each remembered with how to
 * create its per-vnode part, so that a vnode installed later gets every one of them.
 */
final class VnodeStateRegistry<K> {

    private static final Logger LOG = LoggerFactory.getLogger(VnodeStateRegistry.class);

    /** Creates a state's part on one vnode's delegate backend. */
    @FunctionalInterface
    interface StateBinder<K> {
        InternalKvState<K, ?, ?> bind(CheckpointableKeyedStateBackend<K> vnodeBackend)
                throws Exception;
    }

    /**
     * Creates a timer queue's part on one vnode's delegate backend, with the first timers a
     * handover's origin shipped (see {@link TimerQueueHeads}).
     */
    @FunctionalInterface
    interface QueueBinder<K> {
        KeyGroupedInternalPriorityQueue<?> bind(
                CheckpointableKeyedStateBackend<K> vnodeBackend, TimerQueueHeads shipped);
    }

    private record RegisteredState<K>(
            AbstractVnodeState<K, ?, ?, ?> state, StateBinder<K> binder) {}

    private record RegisteredQueue<K>(VnodePriorityQueue<?> queue, QueueBinder<K> binder) {}

    private final VnodeKeyContext<K> keyContext;
    private final TypeSerializer<K> keySerializer;
    private final VnodeBackends<K> backends;
    private final Map<String, RegisteredState<K>> statesByName = new LinkedHashMap<>();
    private final Map<String, RegisteredQueue<K>> queuesByName = new LinkedHashMap<>();

    /**
     * Restored vnodes' first timers of the queues not created yet, as of the restored checkpoint.
     * They stay true until the queue's part is created: until then nothing writes its timers.
     */
    private final Map<Integer, TimerQueueHeads> restoredTimerHeads = new HashMap<>();

    /** The binders registered so far, for {@link #prebind} on another thread; replaced whole. */
    private volatile Binders<K> published = new Binders<>(Map.of(), Map.of());

    private record Binders<K>(
            Map<String, StateBinder<K>> states, Map<String, QueueBinder<K>> queues) {}

    /**
     * A vnode's parts of the states and timer queues registered when it was prebound, created off
     * the task thread.
     */
    static final class Prebound<K> {
        private static final Prebound<?> NONE = new Prebound<>(Map.of(), Map.of());

        private final Map<String, InternalKvState<K, ?, ?>> states;
        private final Map<String, KeyGroupedInternalPriorityQueue<?>> queues;

        private Prebound(
                Map<String, InternalKvState<K, ?, ?>> states,
                Map<String, KeyGroupedInternalPriorityQueue<?>> queues) {
            this.states = states;
            this.queues = queues;
        }

        @SuppressWarnings("unchecked")
        static <K> Prebound<K> none() {
            return (Prebound<K>) NONE;
        }
    }

    VnodeStateRegistry(
            VnodeKeyContext<K> keyContext,
            TypeSerializer<K> keySerializer,
            VnodeBackends<K> backends) {
        this.keyContext = keyContext;
        this.keySerializer = keySerializer;
        this.backends = backends;
    }

    /** Returns the operator-facing state for the descriptor, creating it on every owned vnode. */
    @SuppressWarnings("unchecked")
    <N, S extends State> S getOrCreateState(
            TypeSerializer<N> namespaceSerializer,
            StateDescriptor<?, ?> descriptor,
            StateBinder<K> binder)
            throws Exception {
        RegisteredState<K> registered = statesByName.get(descriptor.getName());
        if (registered == null) {
            AbstractVnodeState<K, N, ?, ?> state = newDispatcher(descriptor, namespaceSerializer);
            for (int vnode : backends.ownedVnodes()) {
                bindState(state, vnode, binder.bind(backends.get(vnode)));
            }
            registered = new RegisteredState<>(state, binder);
            statesByName.put(descriptor.getName(), registered);
            publish();
        }
        return (S) registered.state();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> getOrCreateQueue(
                    String name, QueueBinder<K> binder) {
        RegisteredQueue<K> registered = queuesByName.get(name);
        if (registered == null) {
            VnodePriorityQueue<T> queue = new VnodePriorityQueue<>(name, keyContext.layout());
            // Creating a part reads the head of each of the vnode's key groups from RocksDB: after
            // a restore, much of the time until the subtask processes again. On several threads
            // it was no faster where the restoring subtasks already fill the cores (benchmarks.md).
            long start = System.nanoTime();
            int[] owned = backends.ownedVnodes();
            for (int vnode : owned) {
                bindQueue(
                        queue, vnode, binder.bind(backends.get(vnode), restoredHeads(vnode, name)));
            }
            LOG.debug(
                    "Created timer queue {} on {} vnodes in {} ms",
                    name,
                    owned.length,
                    (System.nanoTime() - start) / 1_000_000);
            registered = new RegisteredQueue<>(queue, binder);
            queuesByName.put(name, registered);
            publish();
        }
        return (KeyGroupedInternalPriorityQueue<T>) registered.queue();
    }

    /**
     * Lets restored vnodes create their timer queues from the first timers their checkpoint stored
     * (see {@link VnodeManifest}) instead of reading them from RocksDB; on the task thread, before
     * the operator creates its queues.
     */
    void startQueuesFrom(Map<Integer, TimerQueueHeads> restored) {
        restored.forEach(
                (vnode, heads) -> {
                    if (backends.owns(vnode) && !heads.isEmpty()) {
                        restoredTimerHeads.put(vnode, heads);
                    }
                });
    }

    /** The vnode's restored first timers of the queue, forgotten once the queue is created. */
    private TimerQueueHeads restoredHeads(int vnode, String queue) {
        TimerQueueHeads heads = restoredTimerHeads.remove(vnode);
        if (heads == null) {
            return TimerQueueHeads.NONE;
        }
        TimerQueueHeads rest = heads.without(queue);
        if (!rest.isEmpty()) {
            restoredTimerHeads.put(vnode, rest);
        }
        return heads;
    }

    private void publish() {
        Map<String, StateBinder<K>> states = new LinkedHashMap<>();
        statesByName.forEach((name, registered) -> states.put(name, registered.binder()));
        Map<String, QueueBinder<K>> queues = new LinkedHashMap<>();
        queuesByName.forEach((name, registered) -> queues.put(name, registered.binder()));
        published =
                new Binders<>(
                        Collections.unmodifiableMap(states), Collections.unmodifiableMap(queues));
    }

    /**
     * Creates a vnode's part of every state and timer queue registered so far on an instance that
     * is not part of the backend yet, on any thread. Creating a timer queue reads the head of each
     * of the vnode's key groups from RocksDB (see {@link RocksDbTimerQueueFactory}): tens to
     * hundreds of milliseconds per vnode with a timer per record, which would otherwise stop the
     * task when it adopts the vnode. The moved vnode's records still wait for it. {@link
     * #bindVnode} uses these parts, and binds what was registered since.
     *
     * @param shipped the first timers the vnode's origin shipped, which need no reading
     */
    Prebound<K> prebind(CheckpointableKeyedStateBackend<K> vnodeBackend, TimerQueueHeads shipped)
            throws Exception {
        Binders<K> binders = published;
        Map<String, InternalKvState<K, ?, ?>> states = new LinkedHashMap<>();
        for (Map.Entry<String, StateBinder<K>> binder : binders.states().entrySet()) {
            states.put(binder.getKey(), binder.getValue().bind(vnodeBackend));
        }
        Map<String, KeyGroupedInternalPriorityQueue<?>> queues = new LinkedHashMap<>();
        for (Map.Entry<String, QueueBinder<K>> binder : binders.queues().entrySet()) {
            queues.put(binder.getKey(), binder.getValue().bind(vnodeBackend, shipped));
        }
        return new Prebound<>(states, queues);
    }

    /**
     * Gives a newly installed vnode its part of every registered state and queue: those {@code
     * prebound} on its instance, and the others created now (with the first timers {@code
     * shipped}).
     */
    void bindVnode(
            int vnode,
            CheckpointableKeyedStateBackend<K> vnodeBackend,
            Prebound<K> prebound,
            TimerQueueHeads shipped)
            throws Exception {
        for (Map.Entry<String, RegisteredState<K>> entry : statesByName.entrySet()) {
            InternalKvState<K, ?, ?> part = prebound.states.get(entry.getKey());
            bindState(
                    entry.getValue().state(),
                    vnode,
                    part != null ? part : entry.getValue().binder().bind(vnodeBackend));
        }
        for (Map.Entry<String, RegisteredQueue<K>> entry : queuesByName.entrySet()) {
            KeyGroupedInternalPriorityQueue<?> part = prebound.queues.get(entry.getKey());
            bindQueue(
                    entry.getValue().queue(),
                    vnode,
                    part != null ? part : entry.getValue().binder().bind(vnodeBackend, shipped));
        }
    }

    /**
     * The first timer of each key group of the vnode's timer queues, as their caches hold them (see
     * {@link RocksDbTimerQueueFactory#cachedHeadsOf}); on the task thread or while it waits.
     */
    TimerQueueHeads cachedTimerHeadsOf(int vnode) {
        Map<String, TimerQueueHeads.KeyGroupHeads> heads = new LinkedHashMap<>();
        queuesByName.forEach(
                (name, registered) -> {
                    TimerQueueHeads.KeyGroupHeads cached = registered.queue().cachedHeadsOf(vnode);
                    if (cached != null) {
                        heads.put(name, cached);
                    }
                });
        return new TimerQueueHeads(heads);
    }

    void unbindVnode(int vnode) {
        restoredTimerHeads.remove(vnode);
        statesByName.values().forEach(registered -> registered.state().unbind(vnode));
        queuesByName.values().forEach(registered -> registered.queue().unbind(vnode));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static <K> void bindState(
            AbstractVnodeState<K, ?, ?, ?> state, int vnode, InternalKvState<K, ?, ?> part) {
        ((AbstractVnodeState) state).bind(vnode, part);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void bindQueue(
            VnodePriorityQueue<?> queue, int vnode, KeyGroupedInternalPriorityQueue<?> part) {
        ((VnodePriorityQueue) queue).bind(vnode, (KeyGroupedInternalPriorityQueue) part);
    }

    private <N> AbstractVnodeState<K, N, ?, ?> newDispatcher(
            StateDescriptor<?, ?> descriptor, TypeSerializer<N> namespaceSerializer) {
        String name = descriptor.getName();
        switch (descriptor.getType()) {
            case VALUE:
                return new VnodeValueState<>(name, keyContext, keySerializer, namespaceSerializer);
            case LIST:
                return new VnodeListState<>(name, keyContext, keySerializer, namespaceSerializer);
            case MAP:
                return new VnodeMapState<>(name, keyContext, keySerializer, namespaceSerializer);
            case REDUCING:
                return new VnodeReducingState<>(
                        name, keyContext, keySerializer, namespaceSerializer);
            case AGGREGATING:
                return new VnodeAggregatingState<>(
                        name, keyContext, keySerializer, namespaceSerializer);
            default:
                throw new UnsupportedOperationException(
                        "State '"
                                + name
                                + "' has type "
                                + descriptor.getType()
                                + ", which Rhino keyed operators do not support.");
        }
    }
}
