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

package io.rhino.benchmarks.nexmark;

import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.nexmark.generator.EventTimestamps;
import io.rhino.benchmarks.nexmark.generator.GeneratorConfig;
import io.rhino.benchmarks.nexmark.generator.KeyDistribution;
import io.rhino.benchmarks.nexmark.generator.RateSchedule;
import io.rhino.benchmarks.nexmark.model.RecordSizes;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.util.TimeUtils;

/** The flags of {@link NexmarkBenchmark} that describe the generated input, and their parsing. */
final class NexmarkFlags {

    private NexmarkFlags() {}

    static Args declareGenerator(Args args) {
        return args.flag("seed", 42, "seed of the generator")
                .flag("proportions", "1:3:46", "persons:auctions:bids per cycle")
                .flag("keys", "uniform", "referenced keys: uniform or zipf:<exponent>")
                .flag("zipf-keys", 100_000, "candidate keys of the Zipf distribution")
                .flag("active-persons", 0, "references go to the newest N persons (0: all)")
                .flag("active-auctions", 0, "bids go to the newest N auctions (0: all)")
                .flag("sizes", "206:269:32", "encoded bytes of person:auction:bid")
                .flag(
                        "timestamps",
                        "wall",
                        "creation timestamps: wall (clock at generation) or synthetic:<events/s>")
                .flag(
                        "rate",
                        "fixed:1",
                        "rate per producer thread: max, fixed:<MB/s> or varying (the paper's 1-8 MB/s)");
    }

    static GeneratorConfig generator(Args args) {
        int[] proportions = ints(args.get("proportions"), "proportions");
        int[] sizes = ints(args.get("sizes"), "sizes");
        return new GeneratorConfig(
                args.getLong("seed"),
                proportions[0],
                proportions[1],
                proportions[2],
                keys(args.get("keys"), args.getInt("zipf-keys", 1)),
                args.getLong("active-persons"),
                args.getLong("active-auctions"),
                new RecordSizes(sizes[0], sizes[1], sizes[2]),
                timestamps(args.get("timestamps")));
    }

    static KeyDistribution keys(String value, int zipfKeys) {
        if (value.equals("uniform")) {
            return KeyDistribution.UNIFORM;
        }
        if (value.startsWith("zipf:")) {
            return KeyDistribution.zipf(Double.parseDouble(value.substring(5)), zipfKeys);
        }
        throw new IllegalArgumentException("--keys is uniform or zipf:<exponent>, not " + value);
    }

    static EventTimestamps timestamps(String value) {
        if (value.equals("wall")) {
            return EventTimestamps.wallClock();
        }
        if (value.startsWith("synthetic:")) {
            return EventTimestamps.synthetic(
                    GeneratorConfig.SYNTHETIC_BASE_MILLIS, Long.parseLong(value.substring(10)));
        }
        throw new IllegalArgumentException(
                "--timestamps is wall or synthetic:<events/s>, not " + value);
    }

    static RateSchedule rate(String value) {
        if (value.equals("max")) {
            return RateSchedule.max();
        }
        if (value.equals("varying")) {
            return RateSchedule.paperVarying();
        }
        if (value.startsWith("fixed:")) {
            return RateSchedule.fixed(Double.parseDouble(value.substring(6)) * 1e6);
        }
        throw new IllegalArgumentException("--rate is max, fixed:<MB/s> or varying, not " + value);
    }

    static Duration duration(Args args, String flag) {
        return TimeUtils.parseDuration(args.get(flag));
    }

    static List<Duration> durations(Args args, String flag) {
        return Arrays.stream(args.get(flag).split(","))
                .map(String::trim)
                .map(TimeUtils::parseDuration)
                .toList();
    }

    private static int[] ints(String value, String flag) {
        String[] parts = value.split(":");
        if (parts.length != 3) {
            throw new IllegalArgumentException("--" + flag + " needs a:b:c, got " + value);
        }
        return Arrays.stream(parts).mapToInt(Integer::parseInt).toArray();
    }
}
