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

package io.rhino.handover.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FullStoresTest {

    @Test
    void aFullStoreIsExcludedForTheBackoffCountedFromWhenItRanFull() {
        FullStores stores = new FullStores(Duration.ofSeconds(60));
        assertThat(stores.report("a", -1, 1_000_000)).isFalse();
        assertThat(stores.excluded(1_000_000)).isEmpty();

        // ran full 10 s before the report arrived
        assertThat(stores.report("b", 10_000, 1_000_000)).isTrue();
        assertThat(stores.excluded(1_000_000)).containsExactly("b");
        assertThat(stores.nextExpiryMillis()).hasValue(1_050_000);
        // the same event reported again changes nothing
        assertThat(stores.report("b", 11_000, 1_001_000)).isFalse();
        assertThat(stores.expired(1_049_999)).isFalse();
        assertThat(stores.excluded(1_049_999)).containsExactly("b");
        assertThat(stores.expired(1_050_000)).isTrue();
        assertThat(stores.excluded(1_050_000)).isEmpty();
        assertThat(stores.nextExpiryMillis()).isEmpty();
        // reports of that old event after the back-off ended change nothing
        assertThat(stores.report("b", 61_000, 1_051_000)).isFalse();
        assertThat(stores.expired(1_052_000)).isFalse();
    }

    @Test
    void aNewFullEventRestartsTheBackoff() {
        FullStores stores = new FullStores(Duration.ofSeconds(60));
        stores.report("b", 0, 0);
        stores.report("b", 0, 30_000);
        assertThat(stores.excluded(89_999)).containsExactly("b");
        assertThat(stores.excluded(90_000)).isEmpty();
        assertThat(stores.nextExpiryMillis()).hasValue(90_000);
    }

    @Test
    void theBackoffEndsAreWhenEachTaskManagerIsTakenBack() {
        FullStores stores = new FullStores(Duration.ofSeconds(60));
        stores.report("a", -1, 0);
        stores.report("b", 10_000, 20_000);
        stores.report("c", 0, 30_000);
        assertThat(stores.backoffEndsMillis())
                .containsOnly(entry("b", 70_000L), entry("c", 90_000L));
        assertThat(stores.excluded(69_999)).containsExactly("b", "c");
        assertThat(stores.excluded(70_000)).containsExactly("c");
    }
}
