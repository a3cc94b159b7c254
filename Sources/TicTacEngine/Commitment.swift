import TicTacCrypto
import TicTacWire

/// The die-roll commitment (Protocol.md §8): each side commits to SHA-256(roll || nonce) (a quick
/// roll: BLAKE2b-256) before either reveals, so neither can choose its secret after seeing the other's.
///
/// Every game hashes four times on each side (our commitment, the check of the peer's, the
/// first-move decision, the game key): the inputs are laid out in stack buffers and the digests read in place
/// (docs/performance.md).
public enum Commitment {
    /// Bytes in a secret: the roll (4) and the nonce (16).
    public static let secretLength = 20

    /// The secret a commitment hides: the roll as 4 big-endian bytes, then the 16-byte nonce.
    public static func secret(roll: UInt32, nonce: ID128) -> [UInt8] {
        withUnsafeTemporaryAllocation(byteCount: secretLength, alignment: 1) { buffer in
            write(roll: roll, nonce: nonce, into: buffer)
            return Array(buffer)
        }
    }

    /// Writes the secret into the first `secretLength` bytes of `buffer`.
    static func write(roll: UInt32, nonce: ID128, into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= secretLength) // our callers' own buffers
        buffer.storeBytes(of: roll.bigEndian, toByteOffset: 0, as: UInt32.self)
        buffer.storeBytes(of: nonce.high.bigEndian, toByteOffset: 4, as: UInt64.self)
        buffer.storeBytes(of: nonce.low.bigEndian, toByteOffset: 12, as: UInt64.self)
    }

    /// The roll's hash over the secret (`quick`: BLAKE2b-256, else SHA-256).
    public static func make(roll: UInt32, nonce: ID128, quick: Bool = false) -> [UInt8] {
        hashSecret(roll: roll, nonce: nonce, quick: quick) { Array($0) }
    }

    /// True when `roll` and `nonce` open `commitment`.
    public static func verify(_ commitment: [UInt8], roll: UInt32, nonce: ID128, quick: Bool = false) -> Bool {
        // A commitment is public, so the comparison need not take constant time.
        hashSecret(roll: roll, nonce: nonce, quick: quick) { digest in
            commitment.withUnsafeBytes { c in
                digest.count == c.count && !digest.indices.contains { digest[$0] != c[$0] }
            }
        }
    }

    /// The secret's digest, read in place by `body`.
    private static func hashSecret<R>(roll: UInt32, nonce: ID128, quick: Bool, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeTemporaryAllocation(byteCount: secretLength, alignment: 8) { buffer in
            write(roll: roll, nonce: nonce, into: buffer)
            return withUnsafeTemporaryAllocation(byteCount: 32, alignment: 1) { digest in
                RollHash.digest(UnsafeRawBufferPointer(buffer), quick: quick, into: digest)
                return body(UnsafeRawBufferPointer(digest))
            }
        }
    }
}
