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

package io.rhino.benchmarks.nexmark.model;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * The factories that the records' {@code @TypeInfo} annotations name: Flink's type extraction (in
 * key selectors, joins, sources) then finds {@link NexmarkTypeInfo} by itself.
 */
public final class NexmarkTypeInfoFactories {

    private NexmarkTypeInfoFactories() {}

    /** Type information of {@link Person}. */
    public static final class PersonFactory extends TypeInfoFactory<Person> {
        @Override
        public TypeInformation<Person> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return NexmarkTypeInfo.PERSON;
        }
    }

    /** Type information of {@link Auction}. */
    public static final class AuctionFactory extends TypeInfoFactory<Auction> {
        @Override
        public TypeInformation<Auction> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return NexmarkTypeInfo.AUCTION;
        }
    }

    /** Type information of {@link Bid}. */
    public static final class BidFactory extends TypeInfoFactory<Bid> {
        @Override
        public TypeInformation<Bid> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return NexmarkTypeInfo.BID;
        }
    }
}
