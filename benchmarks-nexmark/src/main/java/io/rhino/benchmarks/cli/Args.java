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

package io.rhino.benchmarks.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command-line flags of the benchmark mains: {@code --name value} or {@code --name=value}, each
 * with a default and a description. Unknown flags and malformed values fail with a message that
 * lists the known flags.
 */
public final class Args {

    /** One flag: its default value and what it means. */
    record Flag(String name, String defaultValue, String description, boolean repeatable) {}

    private final String program;
    private final Map<String, Flag> flags = new LinkedHashMap<>();
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Map<String, List<String>> repeated = new LinkedHashMap<>();

    public Args(String program) {
        this.program = program;
    }

    /** Declares a flag (without the leading dashes). */
    public Args flag(String name, Object defaultValue, String description) {
        flags.put(name, new Flag(name, String.valueOf(defaultValue), description, false));
        return this;
    }

    /** Declares a flag that may be given any number of times (read with {@link #getAll}). */
    public Args repeatableFlag(String name, String description) {
        flags.put(name, new Flag(name, "none", description + " (repeatable)", true));
        return this;
    }

    /**
     * Parses {@code args}.
     *
     * @return false when help was asked for (the usage is then printed)
     * @throws IllegalArgumentException on unknown flags or missing values
     */
    public boolean parse(String[] args) {
        values.clear();
        repeated.clear();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                System.out.println(usage());
                return false;
            }
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException(
                        "Unexpected argument '" + arg + "'.\n" + usage());
            }
            String name = arg.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException(
                        "Flag --" + name + " needs a value.\n" + usage());
            }
            Flag flag = flags.get(name);
            if (flag == null) {
                throw new IllegalArgumentException("Unknown flag --" + name + ".\n" + usage());
            }
            if (flag.repeatable()) {
                repeated.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
            } else {
                values.put(name, value);
            }
        }
        return true;
    }

    public String get(String name) {
        Flag flag = declared(name, false);
        return values.getOrDefault(name, flag.defaultValue());
    }

    /** Every value of a repeatable flag, in the order given. */
    public List<String> getAll(String name) {
        declared(name, true);
        return List.copyOf(repeated.getOrDefault(name, List.of()));
    }

    private Flag declared(String name, boolean repeatable) {
        Flag flag = flags.get(name);
        if (flag == null || flag.repeatable() != repeatable) {
            throw new IllegalStateException(
                    "undeclared " + (repeatable ? "repeatable " : "") + "flag " + name);
        }
        return flag;
    }

    public long getLong(String name) {
        try {
            return Long.parseLong(get(name).replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "Flag --" + name + " needs an integer, got '" + get(name) + "'.");
        }
    }

    public int getInt(String name) {
        long value = getLong(name);
        if (value != (int) value) {
            throw new IllegalArgumentException("Flag --" + name + " is out of range: " + value);
        }
        return (int) value;
    }

    /** An integer at least {@code min}. */
    public int getInt(String name, int min) {
        int value = getInt(name);
        if (value < min) {
            throw new IllegalArgumentException(
                    "Flag --" + name + " must be at least " + min + ", got " + value + ".");
        }
        return value;
    }

    /** A number greater than zero, such as {@code 0.5}. */
    public double getPositiveDouble(String name) {
        double value;
        try {
            value = Double.parseDouble(get(name).replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "Flag --" + name + " needs a number, got '" + get(name) + "'.");
        }
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(
                    "Flag --" + name + " must be greater than 0, got " + get(name) + ".");
        }
        return value;
    }

    public boolean getBoolean(String name) {
        String value = get(name);
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new IllegalArgumentException(
                "Flag --" + name + " needs true or false, got '" + value + "'.");
    }

    public String usage() {
        StringBuilder usage = new StringBuilder("Usage: ").append(program).append(" [flags]\n");
        for (Flag flag : flags.values()) {
            usage.append(
                    String.format(
                            "  --%-20s %s (default: %s)%n",
                            flag.name(), flag.description(), flag.defaultValue()));
        }
        return usage.toString();
    }
}
