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

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The names a class file's constant pool refers to: its class constants and the UTF-8 constants
 * that are descriptors or signatures. Read without a bytecode library, as the class-file format
 * defines the pool (JVMS 4.4).
 */
final class ClassConstants {

    private final List<String> classNames;
    private final List<String> typeNames;

    private ClassConstants(List<String> classNames, List<String> typeNames) {
        this.classNames = classNames;
        this.typeNames = typeNames;
    }

    static ClassConstants read(byte[] classFile) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor
        in.readUnsignedShort(); // major
        int count = in.readUnsignedShort();
        Map<Integer, String> utf8 = new HashMap<>();
        List<Integer> classIndexes = new ArrayList<>();
        for (int index = 1; index < count; index++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8.put(index, in.readUTF());
                case 7 -> classIndexes.add(in.readUnsignedShort());
                case 8, 16, 19, 20 -> in.readUnsignedShort();
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                case 15 -> {
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                }
                case 5, 6 -> {
                    in.readLong();
                    index++; // takes two entries
                }
                default -> throw new IOException("unknown constant tag " + tag);
            }
        }
        List<String> classNames = new ArrayList<>();
        for (int index : classIndexes) {
            classNames.add(utf8.get(index));
        }
        List<String> typeNames = new ArrayList<>(classNames);
        for (String text : utf8.values()) {
            // descriptors and signatures: L<binary name>;
            if (text.matches(".*L[A-Za-z_$][A-Za-z0-9_$]*/.*;.*")) {
                typeNames.add(text);
            }
        }
        return new ClassConstants(classNames, typeNames);
    }

    /** The classes (and array types) the pool names. */
    List<String> classNames() {
        return classNames;
    }

    /** The class names plus every descriptor or signature in the pool. */
    List<String> typeNames() {
        return typeNames;
    }
}
