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
 * Fixed pools of the records' text fields, built once: the generator picks from them, so making an
 * event allocates no strings.
 */
final class TextPools {

    private static final String[] FIRST = {
        "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter",
        "Walter", "Ada", "Grace", "Linus", "Edsger", "Barbara"
    };
    private static final String[] LAST = {
        "Shultz",
        "Abrams",
        "Spencer",
        "White",
        "Bartels",
        "Walton",
        "Smith",
        "Jones",
        "Noris",
        "Lovelace",
        "Hopper",
        "Liskov",
        "Knuth",
        "Dijkstra",
        "Lamport",
        "Turing"
    };
    private static final String[] DOMAINS = {"example.com", "mail.test", "auction.invalid"};

    static final String[] CITIES = {
        "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond",
                "Seattle",
        "Kent", "Cheyenne", "Berlin", "Zurich", "Lisbon", "Oslo", "Kyoto", "Lagos"
    };
    static final String[] STATES = {"AZ", "CA", "ID", "OR", "WA", "WY", "BE", "ZH", "LI", "OS"};

    static final String[] NAMES = new String[FIRST.length * LAST.length];
    static final String[] EMAILS = new String[NAMES.length];
    static final String[] CREDIT_CARDS = new String[1024];
    static final String[] ITEM_NAMES = new String[256];
    static final String[] DESCRIPTIONS = new String[64];

    static {
        for (int f = 0; f < FIRST.length; f++) {
            for (int l = 0; l < LAST.length; l++) {
                int i = f * LAST.length + l;
                NAMES[i] = FIRST[f] + " " + LAST[l];
                EMAILS[i] =
                        FIRST[f].toLowerCase() + "." + LAST[l].toLowerCase() + "@" + DOMAINS[i % 3];
            }
        }
        EventRandom random = new EventRandom();
        random.reset(0x5EED, 0);
        for (int i = 0; i < CREDIT_CARDS.length; i++) {
            StringBuilder card = new StringBuilder(16);
            for (int d = 0; d < 16; d++) {
                card.append((char) ('0' + random.nextLong(10)));
            }
            CREDIT_CARDS[i] = card.toString();
        }
        for (int i = 0; i < ITEM_NAMES.length; i++) {
            ITEM_NAMES[i] = "item-" + Long.toString(random.nextLong() >>> 1, 36);
        }
        for (int i = 0; i < DESCRIPTIONS.length; i++) {
            DESCRIPTIONS[i] =
                    "A fine lot, number " + i + ", sold as seen; " + CITIES[i % CITIES.length];
        }
    }

    private TextPools() {}
}
