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

package io.rhino.benchmarks.harness;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a system consumed and what it cost in one measured window of a run without reconfiguration:
 * the records per second the job read, and the CPU per thousand of them, of the whole process and
 * of the process without the input side ({@link InputSideThreads}).
 *
 * @param seconds the window's length
 * @param records records the job consumed in it
 * @param processCpuMillis the process's CPU in it; null when unreadable
 * @param inputSideCpuMillis the input side's CPU in it
 */
public record WindowCost(
        double seconds, long records, Long processCpuMillis, long inputSideCpuMillis) {

    /** Figure: records per second the job consumed in the window. */
    public static final String CONSUMED = "consumed, window (rec/s)";

    /** Figure: the whole process's CPU per 1,000 consumed records. */
    public static final String PROCESS_CPU = "process CPU per 1000 rec (ms)";

    /** Figure: the process's CPU without the input side's, per 1,000 consumed records. */
    public static final String JOB_CPU = "CPU without input side per 1000 rec (ms)";

    /** The figures, named as the summary and ratio tables show them; CPU only when known. */
    public Map<String, Double> figures() {
        Map<String, Double> figures = new LinkedHashMap<>();
        if (seconds <= 0) {
            return figures;
        }
        figures.put(CONSUMED, records / seconds);
        if (processCpuMillis != null && records > 0) {
            figures.put(PROCESS_CPU, processCpuMillis * 1000.0 / records);
            figures.put(JOB_CPU, (processCpuMillis - inputSideCpuMillis) * 1000.0 / records);
        }
        return figures;
    }
}
