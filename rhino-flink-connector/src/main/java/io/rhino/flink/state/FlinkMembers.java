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

package io.rhino.flink.state;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Reaches members Flink 2.2.1 does not expose but Rhino depends on (its RocksDB handle, its timer
 * queues' caches, its processing-time service). The callers say what they need the member for when
 * it is missing, so that a Flink upgrade that changed it fails with a message naming it.
 */
public final class FlinkMembers {

    private FlinkMembers() {}

    /** The declared field, made accessible. */
    public static Field field(Class<?> owner, String name) throws NoSuchFieldException {
        return accessible(owner.getDeclaredField(name));
    }

    /** The declared method, made accessible. */
    public static Method method(Class<?> owner, String name, Class<?>... parameters)
            throws NoSuchMethodException {
        return accessible(owner.getDeclaredMethod(name, parameters));
    }

    /** {@code member}, made accessible. */
    public static <M extends AccessibleObject> M accessible(M member) {
        member.setAccessible(true);
        return member;
    }
}
