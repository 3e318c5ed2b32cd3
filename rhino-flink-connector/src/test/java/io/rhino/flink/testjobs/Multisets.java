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

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Compares outputs as multisets, naming the first differences instead of dumping both. */
public final class Multisets {

    private Multisets() {}

    public static Map<String, Long> counts(Collection<String> lines) {
        return lines.stream()
                .collect(
                        Collectors.groupingBy(
                                Function.identity(), TreeMap::new, Collectors.counting()));
    }

    public static void assertSameMultiset(
            String what, Collection<String> expected, Collection<String> actual) {
        Map<String, Long> expectedCounts = counts(expected);
        Map<String, Long> actualCounts = counts(actual);
        StringBuilder differences = new StringBuilder();
        int shown = 0;
        TreeMap<String, Long> all = new TreeMap<>(expectedCounts);
        actualCounts.forEach(all::putIfAbsent);
        for (String line : all.keySet()) {
            long e = expectedCounts.getOrDefault(line, 0L);
            long a = actualCounts.getOrDefault(line, 0L);
            if (e != a && shown++ < 10) {
                differences
                        .append("\n  ")
                        .append(line)
                        .append(": expected ")
                        .append(e)
                        .append(" got ")
                        .append(a);
            }
        }
        assertThat(shown)
                .as(
                        "%s: %d expected lines, %d actual lines, differing entries (first 10):%s",
                        what, expected.size(), actual.size(), differences)
                .isZero();
    }
}
