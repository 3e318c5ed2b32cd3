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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Peers prove to each other that they know a secret without sending it. The receiver sends a random
 * nonce and the sender answers with HMAC-SHA256(secret, "sender" || scope || nonce || member id)
 * and a nonce of its own; the receiver answers that with HMAC-SHA256(secret, "receiver" || scope ||
 * nonce || member id). The role in front keeps one side's proof from ever passing as the other's,
 * so a peer that knows no secret cannot relay a real member's answers to pose as either side.
 *
 * <p>A <em>scope</em> is a path prefix with a secret of its own (a job's operator: its replicas and
 * its secret), registered on the services that work for it; a connection authenticated in a scope
 * touches only paths under it. The empty scope is the service-wide one: its secret is the
 * configured one, and without a secret every peer is accepted in it, unless the service takes
 * {@linkplain ReplicationConfig#scopesOnly() scoped peers only}.
 */
final class Authentication {

    /** Bytes of every nonce: a shorter one would make proofs easier to replay. */
    static final int NONCE_BYTES = 32;

    /** The service-wide scope. */
    static final String SERVICE_WIDE = "";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] SENDER =
            "rhino-replication-sender".getBytes(StandardCharsets.UTF_8);
    private static final byte[] RECEIVER =
            "rhino-replication-receiver".getBytes(StandardCharsets.UTF_8);
    private static final byte[] NONE = new byte[0];

    private final byte[] serviceSecret;
    private final boolean scopesOnly;
    private final Map<String, byte[]> secretByScope = new ConcurrentHashMap<>();

    Authentication(String serviceSecret, boolean scopesOnly) {
        this.serviceSecret =
                serviceSecret == null || serviceSecret.isEmpty()
                        ? null
                        : serviceSecret.getBytes(StandardCharsets.UTF_8);
        this.scopesOnly = scopesOnly;
    }

    /** Whether a peer of the service-wide scope proves anything: false for an open service. */
    boolean required() {
        return serviceSecret != null || scopesOnly;
    }

    /** From now on, peers proving {@code secret} in {@code scope} may work under that prefix. */
    void register(String scope, String secret) {
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException("scope '" + scope + "' needs a secret");
        }
        secretByScope.put(scope, secret.getBytes(StandardCharsets.UTF_8));
    }

    void forget(String scope) {
        secretByScope.remove(scope);
    }

    /** The registered scope {@code path} lies in, or the service-wide one. */
    String scopeOf(String path) {
        for (String scope : secretByScope.keySet()) {
            if (inScope(scope, path)) {
                return scope;
            }
        }
        return SERVICE_WIDE;
    }

    /** Whether a connection authenticated in {@code scope} may touch {@code path}. */
    static boolean inScope(String scope, String path) {
        return scope.isEmpty() || path.startsWith(scope + "/");
    }

    /**
     * Why a peer cannot authenticate in {@code scope} here at all, or empty if it can try: a scope
     * no job registered here, or the service-wide one on a service that takes scoped peers only.
     */
    Optional<String> refusal(String scope) {
        if (scope.isEmpty()) {
            return scopesOnly
                    ? Optional.of(
                            "named no scope, and this service takes only the peers of a job"
                                    + " operator that runs here")
                    : Optional.empty();
        }
        return secretByScope.containsKey(scope)
                ? Optional.empty()
                : Optional.of("named scope '" + scope + "', which no job runs here");
    }

    static byte[] nonce() {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /** The sender's answer to the receiver's {@code nonce}. */
    byte[] prove(String scope, byte[] nonce, String memberId) {
        return mac(SENDER, scope, nonce, memberId);
    }

    boolean accepts(String scope, byte[] nonce, String memberId, byte[] proof) {
        return refusal(scope).isEmpty() && matches(SENDER, scope, nonce, memberId, proof);
    }

    /** The receiver's answer to the nonce of the sender {@code memberId}. */
    byte[] proveReceiver(String scope, byte[] nonce, String memberId) {
        return mac(RECEIVER, scope, nonce, memberId);
    }

    boolean acceptsReceiver(String scope, byte[] nonce, String memberId, byte[] proof) {
        return matches(RECEIVER, scope, nonce, memberId, proof);
    }

    private boolean matches(
            byte[] role, String scope, byte[] nonce, String memberId, byte[] proof) {
        byte[] secret = secretOf(scope);
        if (secret == null) {
            // only the open service-wide scope proves nothing; a scope forgotten meanwhile fails
            return scope.isEmpty() && !scopesOnly;
        }
        return MessageDigest.isEqual(mac(secret, role, scope, nonce, memberId), proof);
    }

    private byte[] mac(byte[] role, String scope, byte[] nonce, String memberId) {
        byte[] secret = secretOf(scope);
        return secret == null ? NONE : mac(secret, role, scope, nonce, memberId);
    }

    private byte[] secretOf(String scope) {
        return scope.isEmpty() ? serviceSecret : secretByScope.get(scope);
    }

    private static byte[] mac(
            byte[] secret, byte[] role, String scope, byte[] nonce, String memberId) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(role);
            mac.update(scope.getBytes(StandardCharsets.UTF_8));
            mac.update((byte) 0);
            mac.update(nonce);
            return mac.doFinal(memberId.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
