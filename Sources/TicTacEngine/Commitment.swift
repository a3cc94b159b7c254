import Crypto
import TicTacWire

/// The fair die roll (Protocol.md §8): each side commits to SHA-256(roll || nonce) before
/// either reveals, so neither can wait for the other's roll and send a higher one.
public enum Commitment {
    /// SHA-256 over the roll as 4 big-endian bytes followed by the 16-byte nonce.
    public static func make(roll: UInt32, nonce: ID128) -> [UInt8] {
        var w = ByteWriter(capacity: 20)
        w.write(roll)
        w.write(nonce.bytes)
        return Array(SHA256.hash(data: w.bytes))
    }

    /// True when `roll` and `nonce` open `commitment`.
    public static func verify(_ commitment: [UInt8], roll: UInt32, nonce: ID128) -> Bool {
        make(roll: roll, nonce: nonce) == commitment
    }
}
