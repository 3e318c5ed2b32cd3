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

package io.rhino.deployment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import shark.CloseableHeapGraph;
import shark.GcRoot;
import shark.HeapField;
import shark.HeapGraph;
import shark.HeapObject;
import shark.HeapValue;
import shark.HprofHeapGraph;
import shark.HprofRecordTag;

/**
 * The shortest chains of strong references from a heap dump's GC roots to the instances of some
 * classes: what keeps a user-code class loader alive once its job left. Weak, soft and phantom
 * referents are not followed; an object's class and a class's loader are, as the JVM keeps them.
 */
final class HeapPaths {

    // no object has id 0: the parent of a GC root
    private static final long ROOT = 0;

    private final HeapGraph graph;
    // object id to the id of the object it was first reached from
    private final Map<Long, Long> parents = new HashMap<>();

    private HeapPaths(HeapGraph graph) {
        this.graph = graph;
    }

    /**
     * Up to {@code limit} paths, one per instance whose class name {@code target} accepts, each
     * from its GC root to the instance; an instance no strong path reaches is not listed. Classes
     * count as roots unless a target defined them: the question is what keeps a target alive while
     * every other loader lives on.
     */
    static List<String> toInstances(Path heapDump, Predicate<String> target, int limit)
            throws IOException {
        try (CloseableHeapGraph graph =
                HprofHeapGraph.Companion.openHeapGraph(
                        heapDump.toFile(), null, HprofRecordTag.Companion.getRootTags())) {
            HeapPaths paths = new HeapPaths(graph);
            List<Long> found = paths.search(target, limit);
            List<String> described = new ArrayList<>();
            for (long id : found) {
                described.add(paths.describePathTo(id));
            }
            return described;
        }
    }

    /** Breadth first from every GC root: the ids of the first targets reached. */
    private List<Long> search(Predicate<String> target, int limit) {
        ArrayDeque<Long> queue = new ArrayDeque<>();
        for (GcRoot root : graph.getGcRoots()) {
            if (graph.objectExists(root.getId())
                    && parents.putIfAbsent(root.getId(), ROOT) == null) {
                queue.add(root.getId());
            }
        }
        // A heap dump names only the boot loader's classes as roots; the application's classes
        // (Flink's, on a TaskManager) live as long as their loader, which outlives every job, and
        // their static fields would be missed without them.
        for (Iterator<HeapObject.HeapClass> it = graph.getClasses().iterator(); it.hasNext(); ) {
            HeapObject.HeapClass type = it.next();
            if (!definedByATarget(type, target)
                    && parents.putIfAbsent(type.getObjectId(), ROOT) == null) {
                queue.add(type.getObjectId());
            }
        }
        List<Long> found = new ArrayList<>();
        while (!queue.isEmpty() && found.size() < limit) {
            long id = queue.poll();
            HeapObject object = graph.findObjectById(id);
            if (object instanceof HeapObject.HeapInstance instance
                    && target.test(instance.getInstanceClassName())) {
                found.add(id);
            }
            for (Edge edge : edges(object)) {
                if (graph.objectExists(edge.to()) && parents.putIfAbsent(edge.to(), id) == null) {
                    queue.add(edge.to());
                }
            }
        }
        return found;
    }

    /**
     * Whether {@code type}'s loader is a target, or a reflection loader beneath one (the JDK
     * defines generated accessors in a child of the declaring class's loader).
     */
    private boolean definedByATarget(HeapObject.HeapClass type, Predicate<String> target) {
        HeapObject loader = graph.findObjectByIdOrNull(type.readRecord().getClassLoaderId());
        while (loader instanceof HeapObject.HeapInstance instance) {
            if (target.test(instance.getInstanceClassName())) {
                return true;
            }
            if (!instance.getInstanceClassName()
                    .equals("jdk.internal.reflect.DelegatingClassLoader")) {
                return false;
            }
            HeapField parent = instance.get("java.lang.ClassLoader", "parent");
            loader = parent == null ? null : parent.getValue().getAsObject();
        }
        return false;
    }

    private record Edge(String name, long to) {}

    /** The strong references out of {@code object}. */
    private static List<Edge> edges(HeapObject object) {
        List<Edge> edges = new ArrayList<>();
        if (object instanceof HeapObject.HeapInstance instance) {
            edges.add(new Edge("<class>", instance.getInstanceClassId()));
            for (Iterator<HeapField> it = instance.readFields().iterator(); it.hasNext(); ) {
                HeapField field = it.next();
                if (!isWeak(field)) {
                    addReference(edges, field.getName(), field.getValue());
                }
            }
        } else if (object instanceof HeapObject.HeapClass type) {
            edges.add(new Edge("<loader>", type.readRecord().getClassLoaderId()));
            for (Iterator<HeapField> it = type.readStaticFields().iterator(); it.hasNext(); ) {
                HeapField field = it.next();
                addReference(edges, "static " + field.getName(), field.getValue());
            }
        } else if (object instanceof HeapObject.HeapObjectArray array) {
            long[] elements = array.readRecord().getElementIds();
            for (int i = 0; i < elements.length; i++) {
                if (elements[i] != 0) {
                    edges.add(new Edge("[" + i + "]", elements[i]));
                }
            }
        }
        return edges;
    }

    private static void addReference(List<Edge> edges, String name, HeapValue value) {
        if (value.isNonNullReference()) {
            edges.add(new Edge(name, value.getAsNonNullObjectId()));
        }
    }

    /** A reference's referent and its pending-list links hold nothing alive. */
    private static boolean isWeak(HeapField field) {
        return field.getDeclaringClass().getName().equals("java.lang.ref.Reference")
                && (field.getName().equals("referent") || field.getName().equals("discovered"));
    }

    /** {@code root Thread "name" -> .threadLocals ThreadLocalMap -> ...}, root first. */
    private String describePathTo(long id) {
        List<Long> chain = new ArrayList<>();
        for (long at = id; at != ROOT; at = parents.get(at)) {
            chain.add(0, at);
        }
        StringBuilder path = new StringBuilder("root ");
        HeapObject previous = null;
        for (long at : chain) {
            HeapObject object = graph.findObjectById(at);
            if (previous != null) {
                path.append("\n  -> .")
                        .append(edgeName(previous, object.getObjectId()))
                        .append(' ');
            }
            path.append(describe(object));
            previous = object;
        }
        return path.toString();
    }

    private static String edgeName(HeapObject from, long to) {
        for (Edge edge : edges(from)) {
            if (edge.to() == to) {
                return edge.name();
            }
        }
        return "?";
    }

    private static String describe(HeapObject object) {
        if (object instanceof HeapObject.HeapClass type) {
            return "class " + type.getName();
        }
        if (object instanceof HeapObject.HeapObjectArray array) {
            return array.getArrayClassName();
        }
        if (object instanceof HeapObject.HeapInstance instance) {
            String name = instance.getInstanceClassName();
            if (instance.instanceOf("java.lang.Thread")) {
                HeapField threadName = instance.get("java.lang.Thread", "name");
                String text = threadName == null ? null : threadName.getValue().readAsJavaString();
                return name + " \"" + text + "\"";
            }
            return name;
        }
        return object.toString();
    }
}
