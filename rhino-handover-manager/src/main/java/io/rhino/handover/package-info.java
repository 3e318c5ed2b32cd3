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
/**
 * The coordinator side of live handovers, free of Flink: {@link io.rhino.handover.HandoverManager}
 * drives the handover protocol of one Rhino keyed operator, keeps its routing table, keeps
 * handovers and checkpoints apart and fails handovers that time out. The Flink adapter feeds it
 * protocol events and checkpoint notifications and implements its {@link
 * io.rhino.handover.HandoverManager.ProtocolPort}.
 */
package io.rhino.handover;
