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

/**
 * Picks the rank of a referenced key among {@code count} candidates: rank 0 is the first candidate
 * (the oldest id of the candidate range).
 */
public interface KeySampler {

    /** A rank in [0, count); {@code count} is positive. */
    long sample(EventRandom random, long count);

    /** The sampler of {@code distribution}. */
    static KeySampler of(KeyDistribution distribution) {
        return switch (distribution.kind()) {
            case UNIFORM -> (random, count) -> random.nextLong(count);
            case ZIPF -> ZipfSampler.shared(distribution.zipfKeys(), distribution.exponent());
        };
    }
}
