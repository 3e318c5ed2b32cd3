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

package io.rhino.core.architecture;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The import cycles between the packages of one module's main classes, read from its class files
 * with ArchUnit's importer: every architecture test of the project asks this one place.
 */
public final class PackageCycles {

    private PackageCycles() {}

    /**
     * The cycles among the packages under {@code root} (itself included), each as the packages it
     * passes through, first one repeated at the end; empty if there is none.
     */
    public static List<List<String>> under(String root) {
        JavaClasses classes =
                new ClassFileImporter()
                        .withImportOption(new ImportOption.DoNotIncludeTests())
                        .importPackages(root);
        if (classes.isEmpty()) {
            // else a misspelt root would pass for a module without cycles
            throw new IllegalArgumentException("no main class under " + root);
        }
        Map<String, Set<String>> uses = new TreeMap<>();
        for (JavaClass type : classes) {
            Set<String> targets = uses.computeIfAbsent(type.getPackageName(), p -> new TreeSet<>());
            for (Dependency dependency : type.getDirectDependenciesFromSelf()) {
                String target = dependency.getTargetClass().getPackageName();
                if (!target.equals(type.getPackageName())
                        && (target.equals(root) || target.startsWith(root + "."))) {
                    targets.add(target);
                }
            }
        }
        return cycles(uses);
    }

    /** One cycle per strongly connected group of packages (Tarjan), as a path through it. */
    static List<List<String>> cycles(Map<String, Set<String>> uses) {
        List<List<String>> cycles = new ArrayList<>();
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new HashSet<>();
        for (String start : uses.keySet()) {
            if (!index.containsKey(start)) {
                connect(start, uses, index, low, stack, onStack, cycles);
            }
        }
        return cycles;
    }

    private static void connect(
            String node,
            Map<String, Set<String>> uses,
            Map<String, Integer> index,
            Map<String, Integer> low,
            Deque<String> stack,
            Set<String> onStack,
            List<List<String>> cycles) {
        index.put(node, index.size());
        low.put(node, index.get(node));
        stack.push(node);
        onStack.add(node);
        for (String next : uses.getOrDefault(node, Set.of())) {
            if (!index.containsKey(next)) {
                connect(next, uses, index, low, stack, onStack, cycles);
                low.put(node, Math.min(low.get(node), low.get(next)));
            } else if (onStack.contains(next)) {
                low.put(node, Math.min(low.get(node), index.get(next)));
            }
        }
        if (low.get(node).equals(index.get(node))) {
            Set<String> group = new TreeSet<>();
            String member;
            do {
                member = stack.pop();
                onStack.remove(member);
                group.add(member);
            } while (!member.equals(node));
            if (group.size() > 1) {
                cycles.add(pathThrough(group, uses));
            }
        }
    }

    /**
     * A cycle through the group's first package, found by a breadth-first walk inside the group.
     */
    private static List<String> pathThrough(Set<String> group, Map<String, Set<String>> uses) {
        String start = group.iterator().next();
        Map<String, String> cameFrom = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            String at = queue.poll();
            for (String next : uses.getOrDefault(at, Set.of())) {
                if (next.equals(start)) {
                    List<String> path = new ArrayList<>(List.of(start));
                    for (String step = at; !step.equals(start); step = cameFrom.get(step)) {
                        path.add(1, step);
                    }
                    path.add(start);
                    return path;
                }
                if (group.contains(next) && !cameFrom.containsKey(next)) {
                    cameFrom.put(next, at);
                    queue.add(next);
                }
            }
        }
        return List.copyOf(group); // unreachable for a strongly connected group
    }
}
