import TicTacCrypto
import TicTacWire

/// Who moves first (Protocol.md §8), decided from both sides' secrets so that neither side alone
/// can steer it. Both sides compute it from the same four values with no further message:
///
/// 1. x = secret_a XOR secret_b, bytewise over the two 20-byte secrets (roll || nonce).
/// 2. Order the two commitments bytewise (unsigned): c1 sorts first, c2 second.
/// 3. j = SHA-256(c1 || c2 || x) (a quick roll: BLAKE2b-256). If j[0] < 0x80 the side of c1
///    moves first, else the side of c2.
///    (Not SHA-256(x) alone: a peer whose secret is all zeros would make that our own commitment,
///    which it knows before it commits; `FairnessTests` caught exactly that.)
/// 4. The rolls shown to the players: high = 1 + (j[4..<8] as u32) mod 999,999; low =
///    (j[8..<12] as u32) mod high. The first mover shows high, so "the higher roll moves first
///    and plays O" still reads true, and ties cannot happen.
///
/// Our secret is uniform and hidden until the peer's commitment is fixed, so x, and with it the
/// decision, is uniform whatever the peer chose. Equal commitments (a peer copying ours, to
/// open it with our own reveal and make x zero) are refused before anything is revealed.
public enum FirstMove {
    /// The outcome, from our side.
    public struct Decision: Sendable, Equatable {
        public var weMoveFirst: Bool
        /// The rolls shown: ours and the peer's (the first mover's is higher).
        public var ourRoll: Int
        public var theirRoll: Int
    }

    /// A roll rebuilt from the history (Protocol.md §13): our secret, the peer's commitment and
    /// the secret it revealed; nil when that secret does not open the commitment.
    public static func decide(ourSecret: [UInt8], theirCommitment: [UInt8], theirSecret: [UInt8]) -> Decision? {
        guard SHA256.hash(data: theirSecret) == theirCommitment else { return nil }
        return decide(ourCommitment: SHA256.hash(data: ourSecret), ourSecret: ourSecret, theirCommitment: theirCommitment,
                      theirSecret: theirSecret)
    }

    /// Decides from both commitments and both openings; nil when the commitments are equal.
    /// `quick`: a quick roll's, which hashes with BLAKE2b-256.
    public static func decide(ourCommitment: [UInt8], ourSecret: [UInt8],
                              theirCommitment: [UInt8], theirSecret: [UInt8], quick: Bool = false) -> Decision? {
        guard ourCommitment != theirCommitment, ourSecret.count == theirSecret.count else { return nil }
        let weSortFirst = ourCommitment.lexicographicallyPrecedes(theirCommitment)
        let (c1, c2) = weSortFirst ? (ourCommitment, theirCommitment) : (theirCommitment, ourCommitment)
        // c1 || c2 || x laid out in one buffer (no arrays built per game), then hashed.
        let length = c1.count + c2.count + ourSecret.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { input in
            var i = 0
            for b in c1 { input[i] = b; i += 1 }
            for b in c2 { input[i] = b; i += 1 }
            for k in ourSecret.indices { input[i] = ourSecret[k] ^ theirSecret[k]; i += 1 }
            return withUnsafeTemporaryAllocation(byteCount: 32, alignment: 1) { digest in // read in place
                RollHash.digest(UnsafeRawBufferPointer(input), quick: quick, into: digest)
                let j = UnsafeRawBufferPointer(digest)
                let lowerCommitmentFirst = j[0] < 0x80
                let weMoveFirst = weSortFirst == lowerCommitmentFirst
                let high = 1 + Int(u32(j, 4) % Message.maxRoll)
                let low = Int(u32(j, 8) % UInt32(high))
                return Decision(weMoveFirst: weMoveFirst, ourRoll: weMoveFirst ? high : low, theirRoll: weMoveFirst ? low : high)
            }
        }
    }

    /// The big-endian u32 at `at`.
    private static func u32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
}
