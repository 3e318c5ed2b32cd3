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

import io.rhino.flink.state.FlinkMembers;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import org.apache.flink.runtime.state.InternalPriorityQueue;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorV2;
import org.apache.flink.streaming.api.operators.InternalTimeServiceManagerImpl;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerServiceImpl;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.runtime.tasks.OperatorChain;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.streaming.runtime.tasks.StreamOperatorWrapper;
import org.apache.flink.streaming.runtime.tasks.StreamTask;
import org.apache.flink.util.function.ThrowingRunnable;

/**
 * Wakes up the processing-time timer services of the operators chained in a gate's task when an
 * install gives them timers earlier than the ones they wait for.
 *
 * <p>Flink's {@link InternalTimerServiceImpl} keeps one scheduled wake-up ({@code nextTimer}) for
 * the head of its processing-time queue, and moves it only when {@code registerProcessingTimeTimer}
 * adds an earlier timer, when a timer fires, or when the service starts. An installed vnode adds
 * its timers to the composite queue behind the service's back: on a standby subtask nothing is
 * scheduled at all, elsewhere the wake-up stays at the old, possibly much later head. Flink has no
 * public way to tell a service that its queue gained an earlier head, so this class does what
 * {@code registerProcessingTimeTimer} does: if the head after the install is earlier than before
 * (or nothing was queued), cancel {@code nextTimer} and schedule the service's {@code
 * onProcessingTime} at the new head (at once if it is already due). Event-time timers need nothing:
 * they fire when the next watermark arrives.
 *
 * <p>This is the one place where Rhino reaches into Flink internals, by reflection. It relies on
 * these members of Flink 2.2.1, all resolved when the class loads so that a Flink without them
 * fails the job at start with a message naming the missing member:
 *
 * <ul>
 *   <li>{@code StreamTask.operatorChain} (protected field): the task's operators;
 *   <li>{@code AbstractStreamOperator.timeServiceManager} and {@code
 *       AbstractStreamOperatorV2.timeServiceManager} (protected fields): an operator's timer
 *       services;
 *   <li>{@code InternalTimeServiceManagerImpl.getRegisteredTimerServices()} (package-private);
 *   <li>{@code InternalTimerServiceImpl.processingTimeTimersQueue}, {@code nextTimer} and {@code
 *       processingTimeService} (protected fields), and {@code onProcessingTime(long)}
 *       (package-private): the queue, its scheduled wake-up and the callback that fires due timers
 *       and schedules the next wake-up.
 * </ul>
 *
 * <p>All of it runs in the task's mailbox thread, like the timer services themselves.
 */
final class ProcessingTimerWakeup {

    private static final Field OPERATOR_CHAIN = field(StreamTask.class, "operatorChain");
    private static final Field TIME_SERVICE_MANAGER =
            field(AbstractStreamOperator.class, "timeServiceManager");
    private static final Field TIME_SERVICE_MANAGER_V2 =
            field(AbstractStreamOperatorV2.class, "timeServiceManager");
    private static final Method REGISTERED_TIMER_SERVICES =
            method(InternalTimeServiceManagerImpl.class, "getRegisteredTimerServices");
    private static final Field PROCESSING_TIME_QUEUE =
            field(InternalTimerServiceImpl.class, "processingTimeTimersQueue");
    private static final Field NEXT_TIMER = field(InternalTimerServiceImpl.class, "nextTimer");
    private static final Field PROCESSING_TIME_SERVICE =
            field(InternalTimerServiceImpl.class, "processingTimeService");
    private static final Method ON_PROCESSING_TIME =
            method(InternalTimerServiceImpl.class, "onProcessingTime", long.class);

    private final StreamTask<?, ?> task;

    ProcessingTimerWakeup(StreamTask<?, ?> task) {
        this.task = task;
    }

    /**
     * Runs {@code install}, which adds timers to the timer queues of operators in this task, then
     * schedules a wake-up for every timer service whose processing-time head became earlier.
     */
    void install(ThrowingRunnable<Exception> install) throws Exception {
        List<ServiceHead> before = new ArrayList<>();
        for (InternalTimerServiceImpl<?, ?> service : timerServices()) {
            before.add(new ServiceHead(service, headTimestamp(service)));
        }
        install.run();
        for (ServiceHead head : before) {
            wakeUpIfEarlier(head.service(), head.timestamp());
        }
    }

    private record ServiceHead(InternalTimerServiceImpl<?, ?> service, Long timestamp) {}

    private static void wakeUpIfEarlier(InternalTimerServiceImpl<?, ?> service, Long headBefore)
            throws Exception {
        // A service not started yet schedules its head itself when it starts; it has no
        // callback target to fire into until then (the key serializer is set on start).
        if (service.getKeySerializer() == null) {
            return;
        }
        Long head = headTimestamp(service);
        ScheduledFuture<?> next = (ScheduledFuture<?>) NEXT_TIMER.get(service);
        if (head == null || (next != null && headBefore != null && head >= headBefore)) {
            return;
        }
        if (next != null && next.isDone()) {
            // The wake-up fired and its callback waits in the mailbox: it fires what is due by then
            // and schedules the new head itself. A second wake-up would start a second chain.
            return;
        }
        if (next != null) {
            next.cancel(false);
        }
        ProcessingTimeService time = (ProcessingTimeService) PROCESSING_TIME_SERVICE.get(service);
        NEXT_TIMER.set(service, time.registerTimer(head, now -> onProcessingTime(service, now)));
    }

    private static void onProcessingTime(InternalTimerServiceImpl<?, ?> service, long time)
            throws Exception {
        try {
            ON_PROCESSING_TIME.invoke(service, time);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    private static Long headTimestamp(InternalTimerServiceImpl<?, ?> service)
            throws IllegalAccessException {
        InternalTimer<?, ?> head =
                (InternalTimer<?, ?>)
                        ((InternalPriorityQueue<?>) PROCESSING_TIME_QUEUE.get(service)).peek();
        return head == null ? null : head.getTimestamp();
    }

    /** The timer services of every operator in the task. */
    private List<InternalTimerServiceImpl<?, ?>> timerServices() throws Exception {
        List<InternalTimerServiceImpl<?, ?>> services = new ArrayList<>();
        OperatorChain<?, ?> chain = (OperatorChain<?, ?>) OPERATOR_CHAIN.get(task);
        for (StreamOperatorWrapper<?, ?> wrapper : chain.getAllOperators()) {
            Object manager = timeServiceManagerOf(wrapper.getStreamOperator());
            // Other managers (batch execution) keep no per-service wake-ups to repair.
            if (manager instanceof InternalTimeServiceManagerImpl<?>) {
                Map<?, ?> byName = (Map<?, ?>) REGISTERED_TIMER_SERVICES.invoke(manager);
                for (Object service : byName.values()) {
                    services.add((InternalTimerServiceImpl<?, ?>) service);
                }
            }
        }
        return services;
    }

    private static Object timeServiceManagerOf(StreamOperator<?> operator)
            throws IllegalAccessException {
        if (operator instanceof AbstractStreamOperator<?>) {
            return TIME_SERVICE_MANAGER.get(operator);
        }
        if (operator instanceof AbstractStreamOperatorV2<?>) {
            return TIME_SERVICE_MANAGER_V2.get(operator);
        }
        return null;
    }

    private static Field field(Class<?> owner, String name) {
        try {
            return FlinkMembers.field(owner, name);
        } catch (NoSuchFieldException | RuntimeException e) {
            throw missing(owner.getName() + "." + name, e);
        }
    }

    private static Method method(Class<?> owner, String name, Class<?>... parameters) {
        try {
            return FlinkMembers.method(owner, name, parameters);
        } catch (NoSuchMethodException | RuntimeException e) {
            throw missing(owner.getName() + "." + name + "()", e);
        }
    }

    private static IllegalStateException missing(String member, Exception cause) {
        return new IllegalStateException(
                "Rhino needs "
                        + member
                        + " of Flink 2.2.1 to wake processing-time timers of vnodes moved by a "
                        + "handover, but cannot use it in this Flink ("
                        + EnvironmentInformation.getVersion()
                        + "). Run Rhino with the Flink version it was built for.",
                cause);
    }
}
