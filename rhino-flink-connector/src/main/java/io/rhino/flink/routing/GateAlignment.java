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

package io.rhino.flink.routing;

import io.rhino.core.handover.HandoverId;
import io.rhino.core.handover.HandoverMarker;
import io.rhino.flink.state.VnodeKeyedStateBackend;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.util.function.ThrowingConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aligns a gate on the routers' markers, per handover: a target starts to hold back the records of
 * its incoming vnodes at the first marker, an origin ships once every router's marker arrived, and
 * event time stands still while a handover here needs it to. On the task thread.
 */
final class GateAlignment {

    private static final Logger LOG = LoggerFactory.getLogger(GateAlignment.class);

    private final String operator;
    private final int subtask;
    private final IncomingVnodeBuffer<?> incoming;
    private final GateShipper shipper;
    private final Supplier<VnodeKeyedStateBackend<?>> backends;
    private final ThrowingConsumer<Watermark, Exception> watermarks;
    private final Map<HandoverId, GateHandover> handovers = new HashMap<>();
    private final StaleHandovers staleHandovers = new StaleHandovers();
    private final Predicate<HandoverId> replayedThroughFilter;

    /** Routers whose output ended: their markers count as arrived for every handover. */
    private final BitSet endedRouters = new BitSet();

    private final WatermarkHold watermarkHold = new WatermarkHold();

    /**
     * @param incoming holds back the records of incoming vnodes
     * @param shipper ships an origin's vnodes once aligned
     * @param watermarks where watermarks go once event time may advance
     * @param replayedThroughFilter handovers whose markers Flink's recovery filter replayed here
     *     (where it redistributes in-flight records at a restore, see {@link ChannelPartitioner})
     */
    GateAlignment(
            String operator,
            int subtask,
            IncomingVnodeBuffer<?> incoming,
            GateShipper shipper,
            Supplier<VnodeKeyedStateBackend<?>> backends,
            ThrowingConsumer<Watermark, Exception> watermarks,
            Predicate<HandoverId> replayedThroughFilter) {
        this.operator = operator;
        this.subtask = subtask;
        this.incoming = incoming;
        this.shipper = shipper;
        this.backends = backends;
        this.watermarks = watermarks;
        this.replayedThroughFilter = replayedThroughFilter;
    }

    void onMarker(HandoverMarker marker, int routerParallelism) throws Exception {
        if (isStale(marker)) {
            return;
        }
        GateHandover handover = handover(marker.handoverId());
        if (handover.onMarker(marker, routerParallelism)) {
            incoming.expect(handover.pendingIncoming());
        }
        if (handover.needsShipping()) {
            shipper.ship(handover);
        }
        forgetIfDone(handover);
        releaseWatermarkIfFree();
    }

    /**
     * A router's output ended (its input did): every handover here counts its marker as arrived,
     * those to come included, so an origin that waited only for it ships now.
     */
    void onRouterEnded(int router) throws Exception {
        endedRouters.set(router);
        for (GateHandover handover : List.copyOf(handovers.values())) {
            handover.routerEnded(router);
            if (handover.needsShipping()) {
                shipper.ship(handover);
            }
            forgetIfDone(handover);
        }
        releaseWatermarkIfFree();
    }

    /** Passes {@code mark} on, or holds it while event time must stand still. */
    void onWatermark(Watermark mark) throws Exception {
        if (eventTimeHeld()) {
            watermarkHold.hold(mark);
        } else {
            watermarks.accept(mark);
        }
    }

    /** {@code vnodes} of handover {@code id} are installed here and their records replayed. */
    void onInstalled(HandoverId id, Set<Integer> vnodes) throws Exception {
        GateHandover handover = handover(id);
        handover.markInstalled(vnodes);
        forgetIfDone(handover);
        releaseWatermarkIfFree();
    }

    /** A replayed marker of a handover that ended before the restored checkpoint. */
    private boolean isStale(HandoverMarker marker) {
        HandoverId id = marker.handoverId();
        if (handovers.containsKey(id)) {
            return false;
        }
        if (staleHandovers.contains(id)) {
            return true;
        }
        // the ownership test needs the subtask and vnode numbers the marker names: subtasks are
        // renumbered only at another parallelism, where every marker comes through the recovery
        // filter; vnodes only by a re-cut, which the marker's vnode count tells
        VnodeKeyedStateBackend<?> backend = backends.get();
        if (replayedThroughFilter.test(id)
                || marker.predatesRecutTo(backend.layout().numVnodes())
                || GateHandover.contradictsOwnership(marker, subtask, backend::owns)) {
            LOG.info(
                    "{} gate {} ignores a replayed marker of handover {} (epoch {}), which ended"
                            + " before the checkpoint it restored",
                    operator,
                    subtask,
                    id,
                    marker.newEpoch());
            staleHandovers.add(id);
            return true;
        }
        return false;
    }

    private boolean eventTimeHeld() {
        return incoming.isHolding()
                || handovers.values().stream().anyMatch(GateHandover::awaitsShipping);
    }

    /** Lets the held watermark through once no handover here needs event time to stand still. */
    private void releaseWatermarkIfFree() throws Exception {
        if (!eventTimeHeld()) {
            Watermark watermark = watermarkHold.release();
            if (watermark != null) {
                watermarks.accept(watermark);
            }
        }
    }

    private GateHandover handover(HandoverId id) {
        return handovers.computeIfAbsent(id, key -> new GateHandover(key, subtask, endedRouters));
    }

    private void forgetIfDone(GateHandover handover) {
        if (handover.done()) {
            handovers.remove(handover.id());
        }
    }
}
