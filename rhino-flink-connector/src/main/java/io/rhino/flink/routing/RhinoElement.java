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

import io.rhino.core.handover.HandoverMarker;
import java.util.Objects;

/**
 * What travels from a Rhino router to a Rhino gate: either a record with the channel (target
 * subtask) the router chose for it, or a handover marker the router emits on every channel when it
 * switches its routing table.
 */
public final class RhinoElement<T> {

    private final int channel;
    private final T value;
    private final HandoverMarker marker;
    private final int routerParallelism;
    private final int endedRouter;

    private RhinoElement(
            int channel, T value, HandoverMarker marker, int routerParallelism, int endedRouter) {
        this.channel = channel;
        this.value = value;
        this.marker = marker;
        this.routerParallelism = routerParallelism;
        this.endedRouter = endedRouter;
    }

    public static <T> RhinoElement<T> record(int channel, T value) {
        return new RhinoElement<>(channel, Objects.requireNonNull(value, "value"), null, 0, -1);
    }

    /**
     * A marker for one channel.
     *
     * @param routerParallelism how many router subtasks emit this marker, so that a gate knows when
     *     it has seen all of them
     */
    public static <T> RhinoElement<T> marker(
            int channel, HandoverMarker marker, int routerParallelism) {
        if (routerParallelism < 1) {
            throw new IllegalArgumentException(
                    "routerParallelism: " + routerParallelism + " (expected: >= 1)");
        }
        return new RhinoElement<>(
                channel, null, Objects.requireNonNull(marker, "marker"), routerParallelism, -1);
    }

    /**
     * The last element a router subtask sends on a channel: its input ended, it sends nothing more,
     * so it counts as having sent every handover's marker, later ones included.
     */
    public static <T> RhinoElement<T> routerEnded(
            int channel, int routerSubtask, int routerParallelism) {
        if (routerSubtask < 0 || routerSubtask >= routerParallelism) {
            throw new IllegalArgumentException(
                    "routerSubtask: "
                            + routerSubtask
                            + " (expected: 0.."
                            + (routerParallelism - 1)
                            + ")");
        }
        return new RhinoElement<>(channel, null, null, routerParallelism, routerSubtask);
    }

    /** Whether this is the end of a router's output ({@link #routerEnded}). */
    public boolean isRouterEnded() {
        return endedRouter >= 0;
    }

    /** The router subtask whose output ended; only for {@link #isRouterEnded()} elements. */
    public int endedRouter() {
        return endedRouter;
    }

    public boolean isMarker() {
        return marker != null;
    }

    public int channel() {
        return channel;
    }

    /** The record; only for non-markers. */
    public T value() {
        return value;
    }

    /** The marker; only for markers. */
    public HandoverMarker marker() {
        return marker;
    }

    public int routerParallelism() {
        return routerParallelism;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RhinoElement<?> other
                && channel == other.channel
                && routerParallelism == other.routerParallelism
                && endedRouter == other.endedRouter
                && Objects.equals(value, other.value)
                && Objects.equals(marker, other.marker);
    }

    @Override
    public int hashCode() {
        return Objects.hash(channel, value, marker, endedRouter);
    }

    @Override
    public String toString() {
        if (isRouterEnded()) {
            return "RhinoElement{channel=" + channel + ", router " + endedRouter + " ended}";
        }
        return isMarker()
                ? "RhinoElement{channel=" + channel + ", marker=" + marker + "}"
                : "RhinoElement{channel=" + channel + ", value=" + value + "}";
    }
}
