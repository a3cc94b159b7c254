import TicTacCrypto
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
/// Ed25519 signing here is deterministic (RFC 8032: libsodium's per-signature nonce is a hash
/// of the key and the message, with no random input). A seeded daemon therefore sends the same
/// bytes on every run, which replaying a packet capture needs.
public struct Identity: Sendable {
    /// Domain separation for the id derivation: 21 ASCII bytes before the public key.
    public static let idLabel: [UInt8] = Array("tictac-instance-id-v1".utf8)
    /// The private key's length (RFC 8032's 32-byte seed).
    public static let privateKeyLength = 32

    /// The 32-byte private key, as `--identity` files keep it.
    public let privateKey: [UInt8]
    /// The library's key, made once: making it derives the public key, as dear as a signature
    /// (docs/performance.md).
    private let signingKey: Ed25519.PrivateKey
    /// The 32-byte Ed25519 public key sent in HELLO.
    public let publicKey: [UInt8]
    /// First 16 bytes of SHA-256(idLabel || publicKey).
    public let instanceID: ID128

    /// From a 32-byte private key (RFC 8032's seed).
    public init(privateKey: [UInt8]) throws(IdentityError) {
        guard privateKey.count == Self.privateKeyLength, let key = Ed25519.PrivateKey(seed: privateKey) else {
            throw IdentityError("a private key is \(Self.privateKeyLength) bytes, not \(privateKey.count)")
        }
        self.privateKey = privateKey
        signingKey = key
        publicKey = key.publicKey
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
        signingKey.signature(for: message)
    }

    /// Whether `signature` is `publicKey`'s over `message`, strictly (Protocol.md §4, "Strict
    /// verification"): a key that is not a canonical encoding of a point of large order, a
    /// signature of the wrong size, with a small-order R or with S >= L does not verify.
    public static func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard StrictEd25519.acceptsKey(publicKey), StrictEd25519.acceptsSignature(signature) else { return false }
        return Ed25519.isValid(signature, for: message, publicKey: publicKey)
    }

    /// Our PROOF on a link (Protocol.md §4): we sign our half first, then the peer's.
    public func proof(version: UInt8, ourNonce: ID128, peer: ID128, peerNonce: ID128) -> [UInt8]? {
        sign(HandshakeTranscript.bytes(version: version, signer: instanceID, signerNonce: ourNonce,
                                       verifier: peer, verifierNonce: peerNonce))
    }

    /// Our PROOF in any version: our side (id, nonce, ephemeral key) first, then the peer's.
    public func proof(version: UInt8, ours: HandshakeTranscript.Side, peer: HandshakeTranscript.Side) -> [UInt8]? {
        sign(HandshakeTranscript.bytes(version: version, signer: ours, verifier: peer))
    }

    /// Checks the peer's PROOF: its HELLO's key signed the peer's half first, then ours.
    public func verifyProof(_ signature: [UInt8], version: UInt8, peer: Hello, ourNonce: ID128,
                            ourEphemeralKey: [UInt8]? = nil) -> Bool {
        let signer = HandshakeTranscript.Side(id: peer.instanceID, nonce: peer.nonce, ephemeralKey: peer.ephemeralKey)
        let verifier = HandshakeTranscript.Side(id: instanceID, nonce: ourNonce, ephemeralKey: ourEphemeralKey)
        return Self.verify(signature, of: HandshakeTranscript.bytes(version: version, signer: signer, verifier: verifier),
                           publicKey: peer.publicKey)
    }
}

/// The checks Protocol.md §4 ("Strict verification") makes before the library's Ed25519
/// verification, whatever the library refuses itself (libsodium refuses these too; other
/// libraries accept small-order keys): a small-order key with a small-order R and S = 0 would
/// otherwise verify for every message.
enum StrictEd25519 {
    /// Every encoding of a point of order 1, 2, 4 or 8 (the top bit, x's sign, ignored):
    /// y = 0, 1, the two order-8 y's, p - 1, p and p + 1.
    static let smallOrder: [[UInt8]] = [
        [UInt8](repeating: 0, count: 32),
        [1] + [UInt8](repeating: 0, count: 31),
        [0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0,
         0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05],
        [0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10, 0x67, 0x0f,
         0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a],
        [0xec] + [UInt8](repeating: 0xff, count: 30) + [0x7f],
        [0xed] + [UInt8](repeating: 0xff, count: 30) + [0x7f],
        [0xee] + [UInt8](repeating: 0xff, count: 30) + [0x7f],
    ]
    /// The group order L = 2^252 + 27742317777372353535851937790883648493, little-endian.
    static let order: [UInt8] = [0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10]

    /// A 32-byte point encoding of small order (sign bit ignored).
    static func isSmallOrder(_ point: ArraySlice<UInt8>) -> Bool {
        guard point.count == 32 else { return false }
        let p = Array(point)
        return smallOrder.contains { bad in (0..<32).allSatisfy { i in (i == 31 ? p[i] & 0x7f : p[i]) == bad[i] } }
    }

    /// y (the encoding without its top bit) is below p = 2^255 - 19.
    static func isCanonical(_ point: [UInt8]) -> Bool {
        guard point.count == 32 else { return false }
        guard point[31] & 0x7f == 0x7f, point[1..<31].allSatisfy({ $0 == 0xff }) else { return true }
        return point[0] < 0xed
    }

    /// A public key: 32 bytes, canonical, not of small order.
    static func acceptsKey(_ key: [UInt8]) -> Bool {
        key.count == 32 && isCanonical(key) && !isSmallOrder(key[...])
    }

    /// A signature R || S: 64 bytes, R not of small order, S < L.
    static func acceptsSignature(_ signature: [UInt8]) -> Bool {
        guard signature.count == 64, !isSmallOrder(signature[0..<32]) else { return false }
        for i in stride(from: 31, through: 0, by: -1) where signature[32 + i] != order[i] {
            return signature[32 + i] < order[i]
        }
        return false // S == L
    }
}
