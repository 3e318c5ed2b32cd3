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

package io.rhino.benchmarks.nexmark.generator;

import io.rhino.benchmarks.nexmark.model.RecordSizes;
import java.io.Serializable;

/**
 * What the generator makes.
 *
 * @param seed the seed; the same seed gives the same events
 * @param persons persons per cycle of {@code persons + auctions + bids} events (paper: 1)
 * @param auctions auctions per cycle (paper: 3)
 * @param bids bids per cycle (paper: 46)
 * @param keys how bids pick auctions and bidders and auctions pick sellers
 * @param activePersons references go to the newest this many persons; 0 for all persons so far
 * @param activeAuctions bids go to the newest this many auctions; 0 for all auctions so far
 * @param sizes encoded record sizes (the records are padded to them)
 * @param timestamps creation timestamps
 */
public record GeneratorConfig(
        long seed,
        int persons,
        int auctions,
        int bids,
        KeyDistribution keys,
        long activePersons,
        long activeAuctions,
        RecordSizes sizes,
        EventTimestamps timestamps)
        implements Serializable {

    /** Event-time base of the synthetic timestamps: 2024-01-01T00:00:00Z. */
    public static final long SYNTHETIC_BASE_MILLIS = 1_704_067_200_000L;

    public GeneratorConfig {
        if (persons < 0 || auctions < 0 || bids < 0 || persons + auctions + bids == 0) {
            throw new IllegalArgumentException(
                    "Proportions must be >= 0 and not all 0: "
                            + persons
                            + ":"
                            + auctions
                            + ":"
                            + bids);
        }
        if (auctions > 0 && persons == 0) {
            throw new IllegalArgumentException("Auctions need persons to sell them");
        }
        if (bids > 0 && (auctions == 0 || persons == 0)) {
            throw new IllegalArgumentException("Bids need auctions and persons");
        }
        if (activePersons < 0 || activeAuctions < 0) {
            throw new IllegalArgumentException("Active persons/auctions must be >= 0");
        }
    }

    /**
     * The paper's workload: proportions 1:3:46, uniform keys over everything created so far, the
     * paper's record sizes, and synthetic timestamps at {@code eventsPerSecond} of event time.
     */
    public static GeneratorConfig paper(long seed, long eventsPerSecond) {
        return new GeneratorConfig(
                seed,
                1,
                3,
                46,
                KeyDistribution.UNIFORM,
                0,
                0,
                RecordSizes.PAPER,
                EventTimestamps.synthetic(SYNTHETIC_BASE_MILLIS, eventsPerSecond));
    }

    public int cycle() {
        return persons + auctions + bids;
    }

    public GeneratorConfig withKeys(KeyDistribution keys) {
        return new GeneratorConfig(
                seed,
                persons,
                auctions,
                bids,
                keys,
                activePersons,
                activeAuctions,
                sizes,
                timestamps);
    }

    public GeneratorConfig withProportions(int persons, int auctions, int bids) {
        return new GeneratorConfig(
                seed,
                persons,
                auctions,
                bids,
                keys,
                activePersons,
                activeAuctions,
                sizes,
                timestamps);
    }

    public GeneratorConfig withActive(long activePersons, long activeAuctions) {
        return new GeneratorConfig(
                seed,
                persons,
                auctions,
                bids,
                keys,
                activePersons,
                activeAuctions,
                sizes,
                timestamps);
    }

    public GeneratorConfig withSizes(RecordSizes sizes) {
        return new GeneratorConfig(
                seed,
                persons,
                auctions,
                bids,
                keys,
                activePersons,
                activeAuctions,
                sizes,
                timestamps);
    }

    public GeneratorConfig withTimestamps(EventTimestamps timestamps) {
        return new GeneratorConfig(
                seed,
                persons,
                auctions,
                bids,
                keys,
                activePersons,
                activeAuctions,
                sizes,
                timestamps);
    }
}
