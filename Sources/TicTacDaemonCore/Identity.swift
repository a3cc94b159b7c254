import Crypto
import TicTacWire

/// Why a private key was refused.
public struct IdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A daemon's key pair and the instance id it gives (Protocol.md §4): the id is a hash of the
/// public key, and the handshake's PROOF shows the key is held, so nobody can claim another
/// daemon's id.
///
/// Ed25519 signing here is deterministic (RFC 8032): swift-crypto on Linux calls BoringSSL's
/// ED25519_sign, whose per-signature nonce is a hash of the key and the message, with no
/// random input. A seeded daemon therefore sends the same bytes on every run, which replaying a
/// packet capture needs. (Apple's CryptoKit randomises its signatures; they still verify.)
public struct Identity: Sendable {
    /// swift-crypto's key is not marked Sendable; this one is never changed after it is made,
    /// and signing only reads it.
    private final class SigningKey: @unchecked Sendable {
        let key: Curve25519.Signing.PrivateKey
        init(_ key: Curve25519.Signing.PrivateKey) { self.key = key }
    }

    /// Domain separation for the id derivation: 21 ASCII bytes before the public key.
    public static let idLabel: [UInt8] = Array("tictac-instance-id-v1".utf8)
    /// The private key's length (RFC 8032's 32-byte seed).
    public static let privateKeyLength = 32

    /// The 32-byte private key, as `--identity` files keep it.
    public let privateKey: [UInt8]
    /// The library's key, made once: making it derives the public key, as dear as a signature
    /// (docs/performance.md).
    private let signingKey: SigningKey
    /// The 32-byte Ed25519 public key sent in HELLO.
    public let publicKey: [UInt8]
    /// First 16 bytes of SHA-256(idLabel || publicKey).
    public let instanceID: ID128

    /// From a 32-byte private key (RFC 8032's seed).
    public init(privateKey: [UInt8]) throws(IdentityError) {
        guard privateKey.count == Self.privateKeyLength,
              let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: privateKey) else {
            throw IdentityError("a private key is \(Self.privateKeyLength) bytes, not \(privateKey.count)")
        }
        self.privateKey = privateKey
        signingKey = SigningKey(key)
        publicKey = Array(key.publicKey.rawRepresentation)
        instanceID = Self.instanceID(forPublicKey: publicKey)
    }

    /// A fresh key from `rng`: the daemon's injected generator, so a seeded test (or a replay)
    /// gets the same key, id and signatures each run.
    public init<R: RandomNumberGenerator>(using rng: inout R) {
        var seed: [UInt8] = []
        seed.reserveCapacity(Self.privateKeyLength)
        for _ in 0..<(Self.privateKeyLength / 8) { withUnsafeBytes(of: rng.next().bigEndian) { seed += $0 } }
        // 32 bytes is every Ed25519 seed: this cannot fail (and would be our bug if it did).
        do { try self.init(privateKey: seed) } catch { preconditionFailure("32-byte seed refused: \(error)") }
    }

    /// The instance id a public key gives (Protocol.md §4).
    public static func instanceID(forPublicKey publicKey: [UInt8]) -> ID128 {
        var hash = SHA256()
        hash.update(data: idLabel)
        hash.update(data: publicKey)
        // Exactly 16 bytes from a 32-byte digest: the `??` is never taken.
        return ID128(bytes: Array(hash.finalize().prefix(16))) ?? ID128(high: 0, low: 0)
    }

    /// Signs a handshake transcript; nil only if the library fails (an internal error).
    public func sign(_ message: [UInt8]) -> [UInt8]? {
        guard let signature = try? signingKey.key.signature(for: message) else { return nil }
        return Array(signature)
    }

    /// Whether `signature` is `publicKey`'s over `message`. A key that is not a valid point,
    /// or a signature of the wrong size, does not verify.
    public static func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    /// Our PROOF on a link (Protocol.md §4): we sign our half first, then the peer's.
    public func proof(version: UInt8, ourNonce: ID128, peer: ID128, peerNonce: ID128) -> [UInt8]? {
        sign(HandshakeTranscript.bytes(version: version, signer: instanceID, signerNonce: ourNonce,
                                       verifier: peer, verifierNonce: peerNonce))
    }

    /// Checks the peer's PROOF: its HELLO's key signed the peer's half first, then ours.
    public func verifyProof(_ signature: [UInt8], version: UInt8, peer: Hello, ourNonce: ID128) -> Bool {
        Self.verify(signature, of: HandshakeTranscript.bytes(version: version, signer: peer.instanceID,
                                                             signerNonce: peer.nonce, verifier: instanceID,
                                                             verifierNonce: ourNonce),
                    publicKey: peer.publicKey)
    }
}
