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

package io.rhino.flink.routing;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information of {@link RhinoElement}s, so that Flink never falls back to Kryo for them. */
public final class RhinoElementTypeInfo<T> extends TypeInformation<RhinoElement<T>> {

    private static final long serialVersionUID = 1L;

    private final TypeInformation<T> valueType;

    public RhinoElementTypeInfo(TypeInformation<T> valueType) {
        this.valueType = valueType;
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    @Override
    public Class<RhinoElement<T>> getTypeClass() {
        return (Class) RhinoElement.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<RhinoElement<T>> createSerializer(SerializerConfig config) {
        return new RhinoElementSerializer<>(valueType.createSerializer(config));
    }

    @Override
    public String toString() {
        return "RhinoElement<" + valueType + ">";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof RhinoElementTypeInfo<?> other && valueType.equals(other.valueType);
    }

    @Override
    public int hashCode() {
        return valueType.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof RhinoElementTypeInfo;
    }
}
