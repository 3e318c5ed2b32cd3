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
 * Peers prove to each other that they know the shared secret without sending it. The receiver sends
 * a random nonce and the sender answers with HMAC-SHA256(secret, "sender" || nonce || member id)
 * and a nonce of its own; the receiver answers that with HMAC-SHA256(secret, "receiver" || nonce ||
 * member id). The role in front keeps one side's proof from ever passing as the other's, so a peer
 * that knows no secret cannot relay a real member's answers to pose as either side. Without a
 * secret every peer is accepted.
 */
final class Authentication {

    /** Bytes of every nonce: a shorter one would make proofs easier to replay. */
    static final int NONCE_BYTES = 32;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] SENDER =
            "rhino-replication-sender".getBytes(StandardCharsets.UTF_8);
    private static final byte[] RECEIVER =
            "rhino-replication-receiver".getBytes(StandardCharsets.UTF_8);

    private final byte[] secret;

    Authentication(String secret) {
        this.secret =
                secret == null || secret.isEmpty() ? null : secret.getBytes(StandardCharsets.UTF_8);
    }

    boolean required() {
        return secret != null;
    }

    static byte[] nonce() {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /** The sender's answer to the receiver's {@code nonce}. */
    byte[] prove(byte[] nonce, String memberId) {
        return mac(SENDER, nonce, memberId);
    }

    boolean accepts(byte[] nonce, String memberId, byte[] proof) {
        return secret == null || MessageDigest.isEqual(prove(nonce, memberId), proof);
    }

    /** The receiver's answer to the nonce of the sender {@code memberId}. */
    byte[] proveReceiver(byte[] nonce, String memberId) {
        return mac(RECEIVER, nonce, memberId);
    }

    boolean acceptsReceiver(byte[] nonce, String memberId, byte[] proof) {
        return secret == null || MessageDigest.isEqual(proveReceiver(nonce, memberId), proof);
    }

    private byte[] mac(byte[] role, byte[] nonce, String memberId) {
        if (secret == null) {
            return new byte[0];
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(role);
            mac.update(nonce);
            return mac.doFinal(memberId.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
