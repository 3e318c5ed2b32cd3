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

package io.rhino.flink.events;

import io.rhino.core.handover.HandoverId;
import java.util.Set;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;

/**
 * Target gate → coordinator: the vnodes are installed and their buffered records replayed.
 *
 * @param installMillis installing (hard-linking and opening) the vnodes
 * @param replayedRecords records that were buffered and replayed
 */
public record TargetInstalledEvent(
        HandoverId handoverId, Set<Integer> vnodes, long installMillis, int replayedRecords)
        implements OperatorEvent {}
