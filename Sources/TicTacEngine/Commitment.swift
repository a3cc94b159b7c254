import Crypto
import TicTacWire

/// The die-roll commitment (Protocol.md §8): each side commits to SHA-256(roll || nonce) before
/// either reveals, so neither can choose its secret after seeing the other's.
public enum Commitment {
    /// The secret a commitment hides: the roll as 4 big-endian bytes, then the 16-byte nonce.
    public static func secret(roll: UInt32, nonce: ID128) -> [UInt8] {
        var w = ByteWriter(capacity: 20)
        w.write(roll)
        w.write(nonce.bytes)
        return w.bytes
    }

    /// SHA-256 over the secret.
    public static func make(roll: UInt32, nonce: ID128) -> [UInt8] {
        Array(SHA256.hash(data: secret(roll: roll, nonce: nonce)))
    }

    /// True when `roll` and `nonce` open `commitment`.
    public static func verify(_ commitment: [UInt8], roll: UInt32, nonce: ID128) -> Bool {
        make(roll: roll, nonce: nonce) == commitment
    }
}
