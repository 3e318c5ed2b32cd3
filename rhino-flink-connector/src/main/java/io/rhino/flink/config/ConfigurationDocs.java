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

package io.rhino.flink.config;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.description.HtmlFormatter;

/**
 * Renders the configuration reference ({@code docs/configuration.md}) from the options declared in
 * {@link RhinoOptions}, so the documentation cannot drift from the code.
 */
public final class ConfigurationDocs {

    private ConfigurationDocs() {}

    /** The whole Markdown page. */
    public static String render() {
        StringBuilder page = new StringBuilder();
        page.append("# Configuration reference\n\n")
                .append("<!-- Generated from io.rhino.flink.config.RhinoOptions by ")
                .append("ConfigurationDocs; do not edit. Regenerate with\n")
                .append("     mvn -pl rhino-flink-connector -am test -Dtest=ConfigurationDocsTest ")
                .append(
                        "-Dsurefire.failIfNoSpecifiedTests=false -Drhino.docs.regenerate=true -->\n\n")
                .append("Rhino reads its options like Flink's own: from the job configuration ")
                .append("first, then from the cluster configuration (`config.yaml`).\n\n")
                .append("| Key | Default | Type | Description |\n")
                .append("|---|---|---|---|\n");
        for (Row row : rows()) {
            page.append("| `")
                    .append(row.key())
                    .append("` | ")
                    .append(row.defaultValue())
                    .append(" | ")
                    .append(row.type())
                    .append(" | ")
                    .append(row.description().replace("|", "\\|").replace("\n", " "))
                    .append(" |\n");
        }
        return page.toString();
    }

    private record Row(String key, String defaultValue, String type, String description) {}

    /**
     * Every option of {@link RhinoOptions} by key, the ones this page documents: for checks of
     * files that set {@code rhino.*} options (deployment examples) against the real keys.
     */
    public static Map<String, ConfigOption<?>> options() {
        Map<String, ConfigOption<?>> options = new TreeMap<>();
        for (Field field : optionFields()) {
            ConfigOption<?> option = read(field);
            options.put(option.key(), option);
        }
        return options;
    }

    private static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        HtmlFormatter formatter = new HtmlFormatter();
        for (Field field : optionFields()) {
            ConfigOption<?> option = read(field);
            rows.add(
                    new Row(
                            option.key(),
                            option.hasDefaultValue() ? "`" + option.defaultValue() + "`" : "(none)",
                            typeOf(field),
                            formatter.format(option.description())));
        }
        rows.sort(Comparator.comparing(Row::key));
        return rows;
    }

    private static List<Field> optionFields() {
        List<Field> fields = new ArrayList<>();
        for (Field field : RhinoOptions.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers())
                    && ConfigOption.class.isAssignableFrom(field.getType())) {
                fields.add(field);
            }
        }
        return fields;
    }

    private static ConfigOption<?> read(Field field) {
        try {
            return (ConfigOption<?>) field.get(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Cannot read option " + field.getName(), e);
        }
    }

    private static String typeOf(Field field) {
        Type type = field.getGenericType();
        if (type instanceof ParameterizedType parameterized) {
            Type argument = parameterized.getActualTypeArguments()[0];
            return argument instanceof Class<?> clazz
                    ? clazz.getSimpleName()
                    : argument.getTypeName();
        }
        return "?";
    }
}
