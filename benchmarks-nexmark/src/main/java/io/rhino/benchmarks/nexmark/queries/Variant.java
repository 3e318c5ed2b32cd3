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

package io.rhino.benchmarks.nexmark.queries;

/** Which keyed streams a query uses; both variants answer the same. */
public enum Variant {
    /** Flink's own {@code keyBy}, {@code join} and {@code coGroup}. */
    PLAIN,
    /** {@code RhinoStreams.keyBy} and {@code RhinoStreams.join}, on the Rhino state backend. */
    RHINO
}
