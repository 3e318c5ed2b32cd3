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

package io.rhino.replication.store;

import java.io.IOException;
import java.nio.file.Path;

/**
 * What the owner of a store checks and does around each commit. Both run on the receiving
 * connection's event loop, before the member acknowledges the file upstream: a refusal in {@link
 * #beforeCommit} fails that file's replication at this member with the exception's message.
 */
public interface CommitListener {

    /**
     * Checks a complete, verified file about to become visible.
     *
     * @param file the temporary file holding its contents
     * @throws IOException to refuse it, saying why
     */
    default void beforeCommit(String relativePath, Path file) throws IOException {}

    /** The file is now visible under {@code relativePath}. */
    default void committed(String relativePath) {}

    CommitListener NONE = new CommitListener() {};
}
