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

package io.rhino.benchmarks;

/** One fired window of one key: how many events it had and the sum of their values. */
public class WindowResult {
    public long key;
    public long windowStart;
    public long windowEnd;
    public long count;
    public long sum;

    /** For Flink's POJO serializer. */
    public WindowResult() {}

    public WindowResult(long key, long windowStart, long windowEnd, long count, long sum) {
        this.key = key;
        this.windowStart = windowStart;
        this.windowEnd = windowEnd;
        this.count = count;
        this.sum = sum;
    }

    @Override
    public String toString() {
        return String.format(
                "key=%-6d window=[%d s, %d s) count=%-3d sum=%d",
                key, windowStart / 1000, windowEnd / 1000, count, sum);
    }
}
