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

package io.rhino.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Opens the distribution jar for Flink's {@code lib/} and checks what a class path shared with
 * Flink and every job needs of it: Rhino's modules inside, their own libraries relocated under
 * {@code io.rhino.shaded} (classes, references to them and service files), and nothing Flink ships.
 */
class DistributionJarITCase {

    /** What Flink's lib/ already has, or a job brings: never in the jar, relocated or not. */
    private static final List<String> FORBIDDEN =
            List.of(
                    "org/apache/flink/",
                    "org/rocksdb/",
                    "org/slf4j/",
                    "org/apache/logging/",
                    "org/apache/log4j/",
                    "org/apache/hadoop/",
                    "io/rhino/shaded/org/");

    /** Libraries the jar must carry only relocated. */
    private static final List<String> RELOCATED =
            List.of("io/netty/", "com/fasterxml/", "picocli/");

    private static JarFile jar;
    private static Set<String> entries;

    @BeforeAll
    static void open() throws IOException {
        Path path = Path.of(System.getProperty("rhino.dist.jar"));
        assertThat(path.getFileName().toString()).matches("rhino-flink-dist-[0-9][^/]*\\.jar");
        assertThat(path).exists();
        jar = new JarFile(path.toFile());
        entries = new TreeSet<>();
        jar.stream().map(JarEntry::getName).forEach(entries::add);
    }

    @Test
    void holdsEveryModuleOfRhino() {
        assertThat(entries)
                .contains(
                        "io/rhino/core/routing/RoutingTable.class",
                        "io/rhino/replication/ReplicationService.class",
                        "io/rhino/handover/operation/Reconfigurations.class",
                        "io/rhino/flink/api/RhinoStreams.class",
                        "io/rhino/flink/state/RhinoStateBackendFactory.class",
                        "io/rhino/flink/api/rest/openapi.json",
                        "io/rhino/cli/RhinoCli.class");
    }

    @Test
    void carriesItsLibrariesOnlyRelocated() {
        assertThat(entries)
                .contains(
                        "io/rhino/shaded/io/netty/channel/nio/NioEventLoopGroup.class",
                        "io/rhino/shaded/io/netty/handler/ssl/SslContextBuilder.class",
                        "io/rhino/shaded/io/netty/handler/codec/http/HttpServerCodec.class",
                        "io/rhino/shaded/com/fasterxml/jackson/databind/ObjectMapper.class",
                        "io/rhino/shaded/picocli/CommandLine.class");
        List<String> outside = new ArrayList<>();
        for (String entry : entries) {
            if (!entry.endsWith("/") && !entry.startsWith("io/rhino/") && !isMetadata(entry)) {
                outside.add(entry);
            }
        }
        assertThat(outside).as("entries outside io/rhino and jar metadata").isEmpty();
        assertThat(entries)
                .as("native libraries, multi-release variants, forbidden packages")
                .noneMatch(e -> e.startsWith("META-INF/native/"))
                .noneMatch(e -> e.startsWith("META-INF/versions/"))
                .noneMatch(e -> e.endsWith(".so") || e.endsWith(".dll") || e.endsWith(".jnilib"))
                .noneMatch(e -> FORBIDDEN.stream().anyMatch(e::startsWith));
    }

    /** The manifest, licence and notice files and service registrations: checked on their own. */
    private static boolean isMetadata(String entry) {
        return entry.equals("META-INF/MANIFEST.MF")
                || entry.startsWith("META-INF/services/")
                || entry.equals("META-INF/io.netty.versions.properties")
                || entry.matches("META-INF/[A-Za-z-]*(LICENSE|NOTICE)[A-Za-z.-]*");
    }

    /**
     * No class refers to a library by its original name: every class and descriptor in the constant
     * pools of the jar's classes names the relocated copy (a class missed by the relocation would
     * load Flink's, a job's or no copy at all).
     */
    @Test
    void refersToItsLibrariesOnlyByTheirRelocatedNames() throws IOException {
        List<String> unrelocated = new ArrayList<>();
        for (String entry : entries) {
            if (!entry.endsWith(".class")) {
                continue;
            }
            for (String name : ClassConstants.read(bytes(entry)).typeNames()) {
                if (RELOCATED.stream().anyMatch(name::contains)
                        && !name.contains("io/rhino/shaded/")) {
                    unrelocated.add(entry + " -> " + name);
                }
                if (FORBIDDEN.stream()
                        .anyMatch(p -> p.startsWith("io/rhino/") && name.contains(p))) {
                    unrelocated.add(entry + " -> " + name);
                }
            }
        }
        assertThat(unrelocated).isEmpty();
    }

    /** Every class Rhino's own code refers to in its own or a relocated package is in the jar. */
    @Test
    void everyRhinoReferenceResolvesInsideTheJar() throws IOException {
        Set<String> missing = new TreeSet<>();
        for (String entry : entries) {
            if (!entry.endsWith(".class") || entry.startsWith("io/rhino/shaded/")) {
                continue;
            }
            for (String name : ClassConstants.read(bytes(entry)).classNames()) {
                String element = name.replaceFirst("^\\[+L?", "").replaceFirst(";$", "");
                if (element.startsWith("io/rhino/") && !entries.contains(element + ".class")) {
                    missing.add(entry + " -> " + element);
                }
            }
        }
        assertThat(missing).isEmpty();
    }

    /**
     * The libraries' service registrations are merged and renamed with their classes, so a
     * relocated Jackson finds its own factories, and no service file names an interface of the
     * original libraries, which another jar on Flink's class path could load.
     */
    @Test
    void mergesAndRelocatesServiceFiles() throws IOException {
        List<String> services =
                entries.stream()
                        .filter(e -> e.startsWith("META-INF/services/") && !e.endsWith("/"))
                        .toList();
        assertThat(services)
                .contains(
                        "META-INF/services/io.rhino.shaded.com.fasterxml.jackson.core.JsonFactory",
                        "META-INF/services/io.rhino.shaded.com.fasterxml.jackson.core.ObjectCodec");
        for (String service : services) {
            assertThat(service).startsWith("META-INF/services/io.rhino.");
            String text = new String(bytes(service), StandardCharsets.UTF_8);
            List<String> providers =
                    text.lines()
                            .map(l -> l.replaceFirst("#.*", "").trim())
                            .filter(l -> !l.isEmpty())
                            .toList();
            assertThat(providers).as(service).isNotEmpty();
            for (String provider : providers) {
                assertThat(entries)
                        .as(service + " names " + provider)
                        .contains(provider.replace('.', '/') + ".class");
            }
        }
    }

    @Test
    void runsTheCliAsItsMainClass() throws IOException {
        assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
                .isEqualTo("io.rhino.cli.RhinoCli");
    }

    private static byte[] bytes(String entry) throws IOException {
        try (InputStream in = jar.getInputStream(jar.getJarEntry(entry))) {
            return in.readAllBytes();
        }
    }
}
