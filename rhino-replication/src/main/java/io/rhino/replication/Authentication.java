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

package io.rhino.replication;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Peers prove they know the shared secret without sending it: the receiver sends a random nonce,
 * the sender answers with HMAC-SHA256(secret, nonce || member id). Without a secret every peer is
 * accepted.
 */
final class Authentication {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] secret;

    Authentication(String secret) {
        this.secret =
                secret == null || secret.isEmpty() ? null : secret.getBytes(StandardCharsets.UTF_8);
    }

    boolean required() {
        return secret != null;
    }

    static byte[] nonce() {
        byte[] nonce = new byte[32];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    byte[] prove(byte[] nonce, String memberId) {
        if (secret == null) {
            return new byte[0];
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(nonce);
            return mac.doFinal(memberId.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    boolean accepts(byte[] nonce, String memberId, byte[] proof) {
        return secret == null || MessageDigest.isEqual(prove(nonce, memberId), proof);
    }
}
