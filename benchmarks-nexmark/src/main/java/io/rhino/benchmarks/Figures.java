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

package io.rhino.benchmarks;

import io.rhino.benchmarks.cli.Args;
import io.rhino.benchmarks.cli.BenchmarkMain;
import io.rhino.benchmarks.harness.RunCsv;
import io.rhino.benchmarks.harness.RunData;
import io.rhino.benchmarks.harness.ScenarioFigures;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Draws a scenario's figures again from the CSVs a run wrote, without running it: after the plots
 * changed, or to show runs of separate commands in one figure (e.g. Rhino and Flink each filled to
 * 20 GB by its own command). A system named in more than one directory gets the directory's name
 * added to its line.
 *
 * <pre>
 * java ... io.rhino.benchmarks.Figures --from out-rhino/nbq8-load-balancing \
 *     --from out-flink/nbq8-load-balancing --out figures --title nbq8-load-balancing-20gb
 * </pre>
 */
public final class Figures {

    private Figures() {}

    public static void main(String[] argv) {
        Args args =
                new Args("Figures")
                        .repeatableFlag(
                                "from",
                                "a scenario's output directory (holding timeseries.csv and"
                                        + " phases.csv)")
                        .flag("out", "target/figures", "directory the PNGs are written to")
                        .flag(
                                "title",
                                "",
                                "the figures' title (default: the first run's scenario)");
        BenchmarkMain.exit(
                "Figures",
                () -> {
                    if (!args.parse(argv)) {
                        return true;
                    }
                    List<Path> from = args.getAll("from").stream().map(Path::of).toList();
                    for (Path file : draw(from, Path.of(args.get("out")), args.get("title"))) {
                        System.out.println("Wrote " + file);
                    }
                    return true;
                });
    }

    /**
     * Reads the runs of every directory of {@code from} and draws them together into {@code out}.
     */
    static List<Path> draw(List<Path> from, Path out, String title) throws IOException {
        List<RunData> runs = runs(from);
        return ScenarioFigures.write(out, title.isEmpty() ? runs.get(0).scenario() : title, runs);
    }

    /**
     * The runs of every directory of {@code from}, in order; a system named in several directories
     * has the directory added to its name.
     */
    static List<RunData> runs(List<Path> from) throws IOException {
        if (from.isEmpty()) {
            throw new IllegalArgumentException("Give at least one --from directory.");
        }
        List<List<RunData>> perDirectory = new ArrayList<>();
        for (Path directory : from) {
            perDirectory.add(RunCsv.read(directory));
        }
        Set<String> seen = new HashSet<>();
        Set<String> repeated = new HashSet<>();
        for (List<RunData> runs : perDirectory) {
            runs.stream()
                    .map(RunData::sut)
                    .distinct()
                    .filter(sut -> !seen.add(sut))
                    .forEach(repeated::add);
        }
        List<RunData> all = new ArrayList<>();
        for (int i = 0; i < from.size(); i++) {
            for (RunData run : perDirectory.get(i)) {
                all.add(
                        repeated.contains(run.sut())
                                ? renamed(run, run.sut() + " (" + label(from, i) + ")")
                                : run);
            }
        }
        if (all.isEmpty()) {
            throw new IllegalArgumentException("The CSVs of " + from + " hold no run.");
        }
        return all;
    }

    /** A directory's name, with its parent's where another directory has the same name. */
    private static String label(List<Path> from, int index) {
        Path directory = from.get(index).toAbsolutePath().normalize();
        String name = String.valueOf(directory.getFileName());
        long sameName =
                from.stream()
                        .map(p -> String.valueOf(p.toAbsolutePath().normalize().getFileName()))
                        .filter(name::equals)
                        .count();
        Path parent = directory.getParent();
        return sameName > 1 && parent != null ? parent.getFileName() + "/" + name : name;
    }

    private static RunData renamed(RunData run, String sut) {
        return new RunData(
                run.scenario(),
                sut,
                run.repetition(),
                run.group(),
                run.startMillis(),
                run.latency(),
                run.throughput(),
                run.resources(),
                run.reconfigurations(),
                run.timingsSeconds(),
                run.figures());
    }
}
