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
 * NBQ8's result: a person and an auction they created in the same tumbling window.
 *
 * @param newestCreation the newer of the person's and the auction's creation timestamps
 */
public record SellerAuction(
        long person,
        String name,
        String city,
        long auction,
        long reserve,
        long windowStart,
        long windowEnd,
        long newestCreation)
        implements TimedResult {}
