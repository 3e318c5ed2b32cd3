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

package io.rhino.core.handover;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Tracks the phase of one handover and how long each phase took.
 *
 * <p>The only legal path is REQUESTED → MARKERS_PROPAGATED → ORIGIN_ALIGNED → STATE_SHIPPED →
 * TARGET_INSTALLED → COMPLETED, one step at a time; {@link #fail(String)} ends the handover from
 * any non-terminal phase.
 *
 * <p>Not thread-safe: confine an instance to one thread (e.g. the coordinator's event loop) or
 * synchronize externally.
 */
public final class HandoverStateMachine {

    private final HandoverId id;
    private final HandoverPlan plan;
    private final LongSupplier clockMillis;
    private final long startedAtMillis;
    private final Map<HandoverPhase, Long> phaseDurationsMillis = new LinkedHashMap<>();

    private HandoverPhase phase = HandoverPhase.REQUESTED;
    private long lastTransitionAtMillis;
    private HandoverPhase failedIn;
    private String failureCause;

    /**
     * Creates a state machine in phase {@link HandoverPhase#REQUESTED}.
     *
     * @param id the handover
     * @param plan the handover's moves
     * @param clockMillis the time source in milliseconds, e.g. {@code System::currentTimeMillis}
     */
    public HandoverStateMachine(HandoverId id, HandoverPlan plan, LongSupplier clockMillis) {
        this.id = Objects.requireNonNull(id, "id: null (expected: a HandoverId)");
        this.plan = Objects.requireNonNull(plan, "plan: null (expected: a HandoverPlan)");
        this.clockMillis =
                Objects.requireNonNull(clockMillis, "clockMillis: null (expected: a clock)");
        this.startedAtMillis = clockMillis.getAsLong();
        this.lastTransitionAtMillis = startedAtMillis;
        phaseDurationsMillis.put(HandoverPhase.REQUESTED, 0L);
    }

    /** Returns the handover's id. */
    public HandoverId id() {
        return id;
    }

    /** Returns the handover's plan. */
    public HandoverPlan plan() {
        return plan;
    }

    /** Returns the current phase. */
    public HandoverPhase phase() {
        return phase;
    }

    /**
     * Moves to {@code next}, which must be the phase directly after the current one.
     *
     * @throws IllegalStateException naming the current phase if {@code next} is not the next one
     */
    public void advanceTo(HandoverPhase next) {
        Objects.requireNonNull(next, "next: null (expected: a HandoverPhase)");
        Optional<HandoverPhase> expected = phase.next();
        if (expected.isEmpty() || expected.get() != next) {
            String expectation =
                    expected.map(HandoverPhase::name).orElse("none, " + phase + " is terminal");
            String hint =
                    next == HandoverPhase.FAILED && expected.isPresent()
                            ? "; use fail(cause) to fail"
                            : "";
            throw new IllegalStateException(
                    String.format(
                            "handover %s: cannot go from %s to %s (expected next: %s%s)",
                            id, phase, next, expectation, hint));
        }
        enter(next);
    }

    /**
     * Ends the handover as {@link HandoverPhase#FAILED}, remembering the current phase and the
     * cause.
     *
     * @param cause what went wrong, not null
     * @throws IllegalStateException naming the current phase if the handover already ended
     */
    public void fail(String cause) {
        Objects.requireNonNull(cause, "cause: null (expected: a description of what went wrong)");
        if (phase.isTerminal()) {
            throw new IllegalStateException(
                    "handover "
                            + id
                            + ": cannot fail in "
                            + phase
                            + " because it has already ended"
                            + (phase == HandoverPhase.FAILED
                                    ? " (failed in " + failedIn + ": " + failureCause + ")"
                                    : ""));
        }
        failedIn = phase;
        failureCause = cause;
        enter(HandoverPhase.FAILED);
    }

    /** Returns whether the handover failed. */
    public boolean isFailed() {
        return phase == HandoverPhase.FAILED;
    }

    /**
     * Returns the phase the handover was in when it failed.
     *
     * @throws IllegalStateException naming the current phase if the handover has not failed
     */
    public HandoverPhase failedIn() {
        if (failedIn == null) {
            throw new IllegalStateException(
                    "handover " + id + ": has not failed (current phase: " + phase + ")");
        }
        return failedIn;
    }

    /** Returns why the handover failed, or empty if it has not failed. */
    public Optional<String> failureCause() {
        return Optional.ofNullable(failureCause);
    }

    /**
     * Returns, for every phase reached so far in order, the milliseconds it took to get there from
     * the previous phase; {@code REQUESTED} maps to 0. Unmodifiable snapshot.
     */
    public Map<HandoverPhase, Long> phaseDurationsMillis() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(phaseDurationsMillis));
    }

    /**
     * Returns the milliseconds from creation until the handover ended, or until now if it is still
     * running.
     */
    public long totalMillis() {
        long end = phase.isTerminal() ? lastTransitionAtMillis : clockMillis.getAsLong();
        return Math.max(0, end - startedAtMillis);
    }

    private void enter(HandoverPhase next) {
        long now = clockMillis.getAsLong();
        // Wall clocks can step backwards; a negative duration would only confuse metrics.
        phaseDurationsMillis.put(next, Math.max(0, now - lastTransitionAtMillis));
        lastTransitionAtMillis = Math.max(now, lastTransitionAtMillis);
        phase = next;
    }

    @Override
    public String toString() {
        return "HandoverStateMachine{id="
                + id
                + ", phase="
                + phase
                + (failedIn != null ? ", failedIn=" + failedIn : "")
                + "}";
    }
}
