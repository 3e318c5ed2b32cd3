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

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads output lines {@code id=value} as an idempotent sink would store them: by id. Results
 * emitted again after a rollback must carry the same value.
 */
public final class Upserts {

    private Upserts() {}

    /** Result id to value; fails on an id written twice with different values. */
    public static Map<String, String> of(List<String> lines) {
        Map<String, String> valueById = new TreeMap<>();
        List<String> conflicts = new ArrayList<>();
        for (String line : lines) {
            int split = line.indexOf('=');
            String id = line.substring(0, split);
            String value = line.substring(split + 1);
            String previous = valueById.put(id, value);
            if (previous != null && !previous.equals(value) && conflicts.size() < 10) {
                conflicts.add(id + ": " + previous + " then " + value);
            }
        }
        assertThat(conflicts).as("results written twice with different values").isEmpty();
        return valueById;
    }
}
