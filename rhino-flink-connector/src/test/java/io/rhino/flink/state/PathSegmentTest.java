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

package io.rhino.flink.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.rhino.flink.replication.PeerVnodeReplication;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PathSegmentTest {

    /** What the replica store takes as one segment of a path. */
    private static final String STORE_SEGMENT = "[A-Za-z0-9_][A-Za-z0-9._-]{0,127}";

    @Test
    void aSafeShortNameStaysAsItIs() {
        for (String name : List.of("counts", "0123abcd", "000012.sst", "MANIFEST-000005", "a_b")) {
            assertThat(PathSegment.of(name)).isEqualTo(name);
        }
    }

    @Test
    void namesThatDifferOnlyInUnsafeCharactersGetTheirOwnSegments() {
        List<String> names =
                List.of(
                        "counts a",
                        "counts_a",
                        "counts/a",
                        "counts:a",
                        "counts\u00e4",
                        "counts\u00f6",
                        ".counts",
                        "_counts",
                        "-counts",
                        "");
        Set<String> segments = new HashSet<>();
        for (String name : names) {
            String segment = PathSegment.of(name);
            assertThat(segment).as("segment of '%s'", name).matches(STORE_SEGMENT);
            segments.add(segment);
        }
        assertThat(segments).hasSameSizeAs(names);
        // two operators of one job never share their replicas or their uploads
        assertThat(PeerVnodeReplication.operatorPrefix("job", "counts a"))
                .isNotEqualTo(PeerVnodeReplication.operatorPrefix("job", "counts_a"));
    }

    @Test
    void aLongNameIsCutAndToldApartByItsHash() {
        String name = "counts-".repeat(100);
        String segment = PathSegment.of(name);
        assertThat(segment).hasSize(PathSegment.MAX_LENGTH).startsWith("_counts-counts-");
        assertThat(segment).matches(STORE_SEGMENT);
        assertThat(segment).isNotEqualTo(PathSegment.of(name + "x"));
        assertThat(PathSegment.of(name)).as("the same for the same name").isEqualTo(segment);
    }
}
