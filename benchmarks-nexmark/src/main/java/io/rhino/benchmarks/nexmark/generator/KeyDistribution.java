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

import java.io.Serializable;

/**
 * How bids and auctions pick the persons and auctions they reference: uniformly (as in the paper)
 * or Zipf-skewed with exponent {@code exponent} over the first {@code zipfKeys} candidates (rank
 * {@code r} is drawn with probability proportional to {@code 1 / (r + 1)^exponent}).
 */
public record KeyDistribution(Kind kind, double exponent, int zipfKeys) implements Serializable {

    /** The shape of the distribution. */
    public enum Kind {
        UNIFORM,
        ZIPF
    }

    public static final KeyDistribution UNIFORM = new KeyDistribution(Kind.UNIFORM, 0, 1);

    public KeyDistribution {
        if (kind == Kind.ZIPF && (exponent < 0 || zipfKeys < 1)) {
            throw new IllegalArgumentException(
                    "Zipf needs an exponent >= 0 and at least one key, got "
                            + exponent
                            + " and "
                            + zipfKeys);
        }
    }

    public static KeyDistribution zipf(double exponent, int keys) {
        return new KeyDistribution(Kind.ZIPF, exponent, keys);
    }

    @Override
    public String toString() {
        return kind == Kind.UNIFORM ? "uniform" : "zipf(s=" + exponent + ", keys=" + zipfKeys + ")";
    }
}
