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

package io.rhino.flink.testjobs;

import org.apache.flink.api.common.functions.MapFunction;

/** Sleeps {@code millis} every {@code records} records: a slow consumer that backs its input up. */
public final class Throttle<T> implements MapFunction<T, T> {
    private final int records;
    private final long millis;
    private long seen;

    public Throttle(int records, long millis) {
        this.records = records;
        this.millis = millis;
    }

    @Override
    public T map(T value) throws InterruptedException {
        if (++seen % records == 0) {
            Thread.sleep(millis);
        }
        return value;
    }
}
