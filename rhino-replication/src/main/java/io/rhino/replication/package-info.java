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
 * The replication runtime (design section 4): one {@link io.rhino.replication.ReplicationService}
 * per TaskManager chain-replicates files to peers over Netty, authenticated by a shared secret,
 * with credit-based flow control and CRC32C checksums, into a validated {@link
 * io.rhino.replication.store.ReplicaStore}.
 */
package io.rhino.replication;
