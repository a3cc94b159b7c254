import TicTacCrypto
import TicTacWire

/// The identity key as discovery uses it: signs our ANNOUNCE and GOODBYE, and checks a peer's
/// (Protocol.md §7 "Signed presence"). A signature is self-certifying: the datagram carries the
/// public key, and the instance id is that key's hash (§4), so nobody can sign for another id.
public struct PresenceKey: Sendable, Equatable {
    private let key: Ed25519.PrivateKey
    /// The 32-byte Ed25519 public key the datagrams carry.
    public let publicKey: [UInt8]
    /// The id this key gives (§4).
    public let instanceID: ID128

    /// From the daemon's 32-byte private key (RFC 8032's seed); nil if it is not one.
    public init?(privateKey: [UInt8]) {
        guard let key = Ed25519.PrivateKey(seed: privateKey) else { return nil }
        self.key = key
        publicKey = key.publicKey
        instanceID = Self.instanceID(forPublicKey: publicKey)
    }

    public static func == (a: PresenceKey, b: PresenceKey) -> Bool { a.publicKey == b.publicKey }

    /// Our datagram, sealed (nil only if the library fails to sign: an internal error).
    public func seal(_ message: Message, version: UInt8, timestamp: UInt64) -> [UInt8]? {
        PresenceSeal.seal(message, version: version, publicKey: publicKey, timestamp: timestamp) { bytes in
            key.signature(for: bytes)
        }
    }

    /// Whether `datagram`'s seal is a valid signature of its bytes by a key whose hash is `id`.
    public static func verify(_ datagram: [UInt8], seal: PresenceSeal, id: ID128) -> Bool {
        guard instanceID(forPublicKey: seal.publicKey) == id else { return false }
        return Ed25519.isValid(seal.signature, for: PresenceSeal.signedBytes(of: datagram), publicKey: seal.publicKey)
    }

    /// The instance id a public key gives: the first 16 bytes of SHA-256("tictac-instance-id-v1"
    /// || key), the derivation of Protocol.md §4 (the daemon's Identity makes the same).
    public static func instanceID(forPublicKey publicKey: [UInt8]) -> ID128 {
        var hash = SHA256()
        hash.update(data: Array("tictac-instance-id-v1".utf8))
        hash.update(data: publicKey)
        // Exactly 16 bytes from a 32-byte digest: the `??` is never taken.
        return ID128(bytes: Array(hash.finalize().prefix(16))) ?? ID128(high: 0, low: 0)
    }
}
