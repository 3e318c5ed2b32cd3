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

package io.rhino.flink.api.rest;

import io.rhino.flink.config.RhinoRuntimeSettings;
import io.rhino.flink.coordination.OperatorServing;
import io.rhino.flink.reconfiguration.RhinoDirectory;

/**
 * Serves Rhino operators over REST: each operator of a job with {@code rhino.rest.enabled} leases
 * the JobManager's {@link RhinoRestServer} while its coordinator runs, so the first one starts the
 * server, with its job's settings, and the last one stops it.
 */
public final class RestServing implements OperatorServing {

    private static final long serialVersionUID = 1L;

    @Override
    public Stop serve(RhinoRuntimeSettings settings, RhinoDirectory directory) {
        if (!settings.rest().enabled()) {
            return () -> {};
        }
        RhinoRestServer.Lease lease =
                RhinoRestServer.acquire(
                        settings.rest(), directory, settings.balancer().maxImbalance());
        return lease::close;
    }
}
