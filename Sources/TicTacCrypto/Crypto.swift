import CSodium

// The primitives tictac uses, all from libsodium (Debian's libsodium-dev): SHA-256, HKDF-SHA256,
// Ed25519 and X25519 here, ChaCha20-Poly1305 in place with the link (LinkCipher). One library,
// built once by the system, instead of a vendored one compiled with every build.

/// libsodium's one-time set-up (it picks the CPU's fastest code); every entry point reads it.
public enum Sodium {
    public static let ready: Bool = sodium_init() >= 0
}

/// SHA-256 (FIPS 180-4), fed in pieces.
public struct SHA256 {
    private var state = crypto_hash_sha256_state()

    public init() {
        _ = Sodium.ready
        crypto_hash_sha256_init(&state)
    }

    public mutating func update(data: [UInt8]) {
        data.withUnsafeBufferPointer { b in _ = crypto_hash_sha256_update(&state, b.baseAddress, UInt64(b.count)) }
    }

    public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
        _ = crypto_hash_sha256_update(&state, bufferPointer.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bufferPointer.count))
    }

    /// The 32-byte digest; the hasher is spent.
    public mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256_final(&state, &digest)
        return digest
    }

    public static func hash(data: [UInt8]) -> [UInt8] {
        var h = SHA256()
        h.update(data: data)
        return h.finalize()
    }
}

/// The roll's hash (Protocol.md §8) over one contiguous input, a 32-byte digest: SHA-256, or in
/// a quick roll BLAKE2b with a 32-byte digest (RFC 7693, libsodium's `crypto_generichash`).
public enum RollHash {
    public static func digest(_ input: UnsafeRawBufferPointer, quick: Bool, into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count >= 32) // our callers' own buffers
        _ = Sodium.ready
        guard let digest = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let bytes = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        if quick {
            _ = crypto_generichash(digest, 32, bytes, UInt64(input.count), nil, 0)
        } else {
            _ = crypto_hash_sha256(digest, bytes, UInt64(input.count))
        }
    }
}

/// HKDF with HMAC-SHA256 (RFC 5869), for one 32-byte key (all the protocol derives).
public enum HKDF {
    /// Extract, then the first block of expand: T(1) = HMAC(PRK, info || 0x01).
    public static func sha256Key(inputKeyMaterial ikm: [UInt8], salt: [UInt8], info: [UInt8]) -> [UInt8] {
        hmac(key: hmac(key: salt, [ikm]), [info, [1]])
    }

    static func hmac(key: [UInt8], _ parts: [[UInt8]]) -> [UInt8] {
        _ = Sodium.ready
        var state = crypto_auth_hmacsha256_state()
        _ = crypto_auth_hmacsha256_init(&state, key, key.count)
        for part in parts {
            part.withUnsafeBufferPointer { p in _ = crypto_auth_hmacsha256_update(&state, p.baseAddress, UInt64(p.count)) }
        }
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_auth_hmacsha256_final(&state, &out)
        return out
    }
}

/// Ed25519 (RFC 8032): deterministic signatures, so a seeded daemon sends the same bytes on
/// every run (a capture replays).
public enum Ed25519 {
    public struct PrivateKey: Sendable {
        /// libsodium's 64-byte secret key: the seed, then the public key.
        private let secret: [UInt8]
        public let publicKey: [UInt8]

        /// From RFC 8032's 32-byte seed; nil for another length.
        public init?(seed: [UInt8]) {
            guard Sodium.ready, seed.count == 32 else { return nil }
            var pk = [UInt8](repeating: 0, count: 32), sk = [UInt8](repeating: 0, count: 64)
            guard crypto_sign_seed_keypair(&pk, &sk, seed) == 0 else { return nil }
            secret = sk
            publicKey = pk
        }

        /// The 64-byte signature of `message`.
        public func signature(for message: [UInt8]) -> [UInt8]? {
            var sig = [UInt8](repeating: 0, count: 64)
            let rc = message.withUnsafeBufferPointer { m in
                crypto_sign_detached(&sig, nil, m.baseAddress, UInt64(m.count), secret)
            }
            return rc == 0 ? sig : nil
        }
    }

    /// libsodium's check, which also refuses a small-order key or R and a non-canonical S; the
    /// protocol's own strict checks (StrictEd25519) come first all the same.
    public static func isValid(_ signature: [UInt8], for message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard Sodium.ready, signature.count == 64, publicKey.count == 32 else { return false }
        return message.withUnsafeBufferPointer { m in
            crypto_sign_verify_detached(signature, m.baseAddress, UInt64(m.count), publicKey) == 0
        }
    }
}

/// X25519 (RFC 7748).
public enum X25519 {
    /// The public key of a 32-byte private key (clamped by the function).
    public static func publicKey(privateKey: [UInt8]) -> [UInt8]? {
        guard Sodium.ready, privateKey.count == 32 else { return nil }
        var pk = [UInt8](repeating: 0, count: 32)
        return crypto_scalarmult_base(&pk, privateKey) == 0 ? pk : nil
    }

    /// The shared secret; nil when it is all zero (a small-order peer key) or a key is not 32 bytes.
    public static func sharedSecret(privateKey: [UInt8], peerKey: [UInt8]) -> [UInt8]? {
        guard Sodium.ready, privateKey.count == 32, peerKey.count == 32 else { return nil }
        var shared = [UInt8](repeating: 0, count: 32)
        return crypto_scalarmult(&shared, privateKey, peerKey) == 0 ? shared : nil
    }
}
