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

package io.rhino.benchmarks.nexmark.queries;

/**
 * NBQX's result: an auction and a bid on it that fell into the same window of one sub-query.
 *
 * @param window the sub-query, e.g. {@code session-30m} or {@code tumbling-4h}
 * @param windowStart the window's start for tumbling windows; -1 for session windows, whose bounds
 *     a window join does not expose (auction, bid and sub-query identify the match)
 * @param windowEnd the window's end for tumbling windows; -1 for session windows
 * @param newestCreation the newest creation timestamp of the window's auctions and bids
 */
public record AuctionBidMatch(
        String window,
        long auction,
        long seller,
        long bidder,
        long price,
        long auctionTime,
        long bidTime,
        long windowStart,
        long windowEnd,
        long newestCreation)
        implements TimedResult {}
