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

package io.rhino.handover;

import io.rhino.core.handover.HandoverCommand;
import io.rhino.core.handover.HandoverId;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** A {@link HandoverManager.ProtocolPort} that records every call, optionally reacting to it. */
final class RecordingPort implements HandoverManager.ProtocolPort {

    /** One {@code sendToTarget} call. */
    record Forward(int target, HandoverId id, List<ShippedVnode> vnodes) {}

    final List<HandoverCommand> commands = new ArrayList<>();
    final List<Forward> forwards = new ArrayList<>();
    final List<Throwable> jobFailures = new ArrayList<>();

    /** Every call in order, e.g. {@code command h-1}, {@code forward h-1 -> 2 [5, 7]}. */
    final List<String> log;

    Consumer<HandoverCommand> onCommand = command -> {};
    Consumer<Forward> onForward = forward -> {};
    Consumer<Throwable> onFailJob = cause -> {};
    RuntimeException failCommands;
    RuntimeException failForwards;

    RecordingPort() {
        this(new ArrayList<>());
    }

    /** Shares {@code log} with other recorders, to check the order across them. */
    RecordingPort(List<String> log) {
        this.log = log;
    }

    @Override
    public void sendToRouters(HandoverCommand command) {
        commands.add(command);
        log.add("command " + command.handoverId());
        if (failCommands != null) {
            throw failCommands;
        }
        onCommand.accept(command);
    }

    @Override
    public void sendToTarget(int targetSubtask, HandoverId id, List<ShippedVnode> vnodes) {
        Forward forward = new Forward(targetSubtask, id, List.copyOf(vnodes));
        forwards.add(forward);
        log.add(
                "forward "
                        + id
                        + " -> "
                        + targetSubtask
                        + " "
                        + vnodes.stream().map(ShippedVnode::vnode).toList());
        if (failForwards != null) {
            throw failForwards;
        }
        onForward.accept(forward);
    }

    @Override
    public void failJob(Throwable cause) {
        jobFailures.add(cause);
        log.add("failJob " + cause.getMessage());
        onFailJob.accept(cause);
    }

    HandoverCommand lastCommand() {
        return commands.get(commands.size() - 1);
    }
}
