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

package io.rhino.benchmarks.scenarios;

import io.rhino.benchmarks.nexmark.generator.EventKind;
import io.rhino.benchmarks.nexmark.generator.GeneratorConfig;
import io.rhino.benchmarks.nexmark.generator.NexmarkGenerator;
import io.rhino.benchmarks.nexmark.model.Auction;
import io.rhino.benchmarks.nexmark.model.AuctionSerializer;
import io.rhino.benchmarks.nexmark.model.NexmarkTypeInfo;
import io.rhino.benchmarks.nexmark.model.Person;
import io.rhino.benchmarks.nexmark.model.PersonSerializer;
import io.rhino.benchmarks.nexmark.queries.EventTimeWatermarks;
import io.rhino.benchmarks.nexmark.queries.FillRecords;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The n-th person or auction of a generator whose cycle starts with one person and three auctions
 * (the paper's 1:3:46, or a fill's 1:3:0), as the function of a {@code DataGeneratorSource}: person
 * j is the first event of cycle j, auction k the (k mod 3)-th auction of cycle k / 3. Each record
 * is a fresh copy (the generator reuses one instance per kind). Optionally marked as a fill record
 * ({@link FillRecords}), or held back until the wall clock reaches its creation timestamp (a paced
 * input: the generator must have synthetic timestamps starting about now).
 */
abstract class NthEvent<T> implements GeneratorFunction<Long, T> {

    private static final long serialVersionUID = 1L;

    static final int PERSONS_PER_CYCLE = 1;
    static final int AUCTIONS_PER_CYCLE = 3;

    /** What the function does with each event beyond generating it. */
    enum Treatment {
        /** Marked as a fill record, emitted at once. */
        FILL,
        /** Emitted once the wall clock reaches its creation timestamp. */
        PACED
    }

    final GeneratorConfig config;
    private final EventKind kind;
    private final Treatment treatment;
    private transient NexmarkGenerator generator;
    private transient TypeSerializer<T> copier;

    NthEvent(GeneratorConfig config, EventKind kind, Treatment treatment) {
        this.config = config;
        this.kind = kind;
        this.treatment = treatment;
    }

    /**
     * A source (one subtask) of the first {@code count} persons of {@code config}, named and with
     * the uid {@code prefix + "persons"}.
     */
    static DataStream<Person> personSource(
            StreamExecutionEnvironment env,
            GeneratorConfig config,
            Treatment treatment,
            long count,
            Duration outOfOrderness,
            String prefix) {
        return source(
                env,
                new Persons(config, treatment),
                count,
                NexmarkTypeInfo.PERSON,
                EventTimeWatermarks.persons(outOfOrderness),
                prefix + "persons");
    }

    /** As {@link #personSource}, of auctions, named {@code prefix + "auctions"}. */
    static DataStream<Auction> auctionSource(
            StreamExecutionEnvironment env,
            GeneratorConfig config,
            Treatment treatment,
            long count,
            Duration outOfOrderness,
            String prefix) {
        return source(
                env,
                new Auctions(config, treatment),
                count,
                NexmarkTypeInfo.AUCTION,
                EventTimeWatermarks.auctions(outOfOrderness),
                prefix + "auctions");
    }

    private static <T> DataStream<T> source(
            StreamExecutionEnvironment env,
            NthEvent<T> function,
            long count,
            TypeInformation<T> type,
            WatermarkStrategy<T> watermarks,
            String name) {
        return env.fromSource(new DataGeneratorSource<>(function, count, type), watermarks, name)
                .uid(name)
                .setParallelism(1);
    }

    /** The generator index of the n-th event of this kind. */
    abstract long indexOf(long n);

    abstract T current(NexmarkGenerator generator);

    abstract T markedAsFill(T event);

    abstract long creationMillis(T event);

    abstract TypeSerializer<T> newCopier();

    @Override
    public void open(SourceReaderContext readerContext) {
        generator = new NexmarkGenerator(config);
        copier = newCopier();
    }

    @Override
    public T map(Long n) throws InterruptedException {
        EventKind generated = generator.generate(indexOf(n));
        if (generated != kind) {
            throw new IllegalStateException(kind + " " + n + " came out as a " + generated);
        }
        T event = current(generator);
        if (treatment == Treatment.FILL) {
            return copier.copy(markedAsFill(event));
        }
        long early = creationMillis(event) - System.currentTimeMillis();
        if (early > 0) {
            Thread.sleep(early);
        }
        return copier.copy(event);
    }

    private static final class Persons extends NthEvent<Person> {
        private static final long serialVersionUID = 1L;

        Persons(GeneratorConfig config, Treatment treatment) {
            super(config, EventKind.PERSON, treatment);
        }

        @Override
        long indexOf(long j) {
            return j * config.cycle();
        }

        @Override
        Person current(NexmarkGenerator generator) {
            return generator.person();
        }

        @Override
        Person markedAsFill(Person event) {
            return FillRecords.mark(event);
        }

        @Override
        long creationMillis(Person event) {
            return event.dateTime;
        }

        @Override
        TypeSerializer<Person> newCopier() {
            return new PersonSerializer();
        }
    }

    private static final class Auctions extends NthEvent<Auction> {
        private static final long serialVersionUID = 1L;

        Auctions(GeneratorConfig config, Treatment treatment) {
            super(config, EventKind.AUCTION, treatment);
        }

        @Override
        long indexOf(long k) {
            return k / AUCTIONS_PER_CYCLE * config.cycle()
                    + PERSONS_PER_CYCLE
                    + k % AUCTIONS_PER_CYCLE;
        }

        @Override
        Auction current(NexmarkGenerator generator) {
            return generator.auction();
        }

        @Override
        Auction markedAsFill(Auction event) {
            return FillRecords.mark(event);
        }

        @Override
        long creationMillis(Auction event) {
            return event.dateTime;
        }

        @Override
        TypeSerializer<Auction> newCopier() {
            return new AuctionSerializer();
        }
    }
}
