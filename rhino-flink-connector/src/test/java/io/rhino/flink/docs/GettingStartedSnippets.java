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

package io.rhino.flink.docs;

// [START imports]
import io.rhino.core.handover.VnodeMove;
import io.rhino.core.routing.RoutingTable;
import io.rhino.flink.api.RhinoKeyedStreamOptions;
import io.rhino.flink.api.RhinoStreams;
import io.rhino.flink.coordination.RhinoHandovers;
import io.rhino.handover.HandoverManager;
import io.rhino.handover.HandoverResult;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

// [END imports]

/**
 * The Java snippets of docs/getting-started.md, as code that compiles: each region between {@code
 * [START name]} and {@code [END name]} is a fenced block of the guide, verbatim but for its
 * indentation ({@code GettingStartedDocTest} checks it), and {@code GettingStartedITCase} runs the
 * job and the handover on a MiniCluster.
 */
public final class GettingStartedSnippets {

    private GettingStartedSnippets() {}

    /** Builds and runs the guide's job; returns when the job ends (cancelled, in the test). */
    public static void main(String[] args) throws Exception {
        // [START job]
        Configuration conf = new Configuration();
        conf.set(
                StateBackendOptions.STATE_BACKEND, "io.rhino.flink.state.RhinoStateBackendFactory");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);

        DataStream<Bid> bids =
                env.fromSource(
                                new DataGeneratorSource<>(
                                        index -> new Bid(index % 1_000, index),
                                        Long.MAX_VALUE,
                                        RateLimiterStrategy.perSecond(1_000),
                                        TypeInformation.of(Bid.class)),
                                WatermarkStrategy.noWatermarks(),
                                "bids")
                        .uid("bids");

        // instead of bids.keyBy(bid -> bid.auctionId)
        RhinoStreams.keyBy(
                        bids,
                        bid -> bid.auctionId,
                        RhinoKeyedStreamOptions.named("bids-per-auction"))
                .process(new CountBids()) // uid rhino-keyed-bids-per-auction
                .sinkTo(new DiscardingSink<>())
                .uid("counts");

        env.execute("bids-per-auction");
        // [END job]
    }

    // [START types]
    /** A bid on an auction (a POJO: public fields, a public no-argument constructor). */
    public static class Bid {
        public long auctionId;
        public long price;

        public Bid() {}

        public Bid(long auctionId, long price) {
            this.auctionId = auctionId;
            this.price = price;
        }
    }

    /** Counts the bids of each auction in keyed state: a plain Flink function. */
    public static class CountBids extends KeyedProcessFunction<Long, Bid, String> {
        private transient ValueState<Long> count;

        @Override
        public void open(OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Long.class));
        }

        @Override
        public void processElement(Bid bid, Context ctx, Collector<String> out) throws Exception {
            long n = count.value() == null ? 1 : count.value() + 1;
            count.update(n);
            out.collect(bid.auctionId + ": " + n);
        }
    }

    // [END types]

    /** Moves vnode 5 to another subtask through the Java API, in the JobManager's process. */
    public static HandoverResult moveVnode5(JobID jobId) throws Exception {
        // [START handover]
        HandoverManager manager = // once every router and gate of the operator runs
                RhinoHandovers.awaitReady(jobId, "bids-per-auction", Duration.ofMinutes(1));
        RoutingTable table = manager.routingTable(); // epoch, vnode -> owner subtask
        int owner = table.ownerOf(5);
        HandoverResult result =
                manager.handover(List.of(new VnodeMove(5, owner, owner == 0 ? 1 : 0)))
                        .get(); // COMPLETED or FAILED, with phase timings
        // [END handover]
        return result;
    }
}
