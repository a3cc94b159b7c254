import TicTacCrypto
import TicTacWire

/// What a game's history needs to hold, as it happens (`GameAction.record`): the durable
/// store writes each before the frame that tells the peer, so a killed daemon never forgets a
/// move its peer saw.
public enum GameFact: Sendable, Equatable {
    /// Our side started game `number` of the match (1 for the first).
    case started(number: Int)
    /// Both commitments are in and our ROLL goes out: the game's key is fixed, and a roll whose
    /// link is lost can be decided later from our `secret` and the peer's commitment (§13).
    case committed(secret: [UInt8], theirCommitment: [UInt8], moveTime: Int)
    /// The peer's ROLL checked, and our ROLL_ACK about to go out: the peer decides on that ACK,
    /// so a restart must be able to decide too, from the peer's `theirSecret` (§13).
    case acknowledged(theirSecret: [UInt8])
    /// The roll decided; `key` is the game's id, made from both sides' commitments;
    /// `moveTime` the agreed seconds per move (0: none).
    case decided(weMoveFirst: Bool, key: ID128, moveTime: Int)
    /// Move `number` (from 1) on a 0-based cell.
    case moved(number: Int, cell: Int, byUs: Bool)
    /// The game is over: the result on our side and how it ended.
    case ended(GameResult, how: GameEnding)
    /// The game stopped unfinished: its link was lost, or its match ended.
    case interrupted
    /// The game waits to be resumed the next time both sides meet (Protocol.md §13).
    case adjourned
    /// No result: a resumable game whose link closed and that could not be kept (the bound, a
    /// fault), never offered again, or one a peer under the older rules disowned (§13).
    case void
    /// A roll that never decided on either side: the game is forgotten (Protocol.md §13).
    case forgotten
}

/// How a game ended, as the history shows it.
public enum GameEnding: String, Sendable {
    /// k in a row.
    case line
    /// The board filled with no line.
    case full
    case resigned
    /// A move clock ran out.
    case time
    /// A side stopped answering, or quit while the first move was being decided.
    case forfeit
    /// Resignations (or a resignation and a drawing move) crossed: a draw (Protocol.md §8).
    case crossed
    /// The peer disowned a game we held: it said it has no such game, or gave a move list
    /// that contradicts ours (Protocol.md §13).
    case abandoned
    /// The peer stayed away past the adjourn limit and the game was claimed: by us (won), or by
    /// the peer while our player was in another game (lost) (Protocol.md §13).
    case claimed
}

/// A game's id: SHA-256 over both roll commitments, the smaller first, cut to 16 bytes. Both
/// sides contribute a fresh secret to it, both compute the same, and nobody who did not see the
/// roll can guess it.
public enum GameKey {
    /// `quick`: a quick roll's key (Protocol.md §13), hashed with BLAKE2b-256, not SHA-256.
    public static func make(_ a: [UInt8], _ b: [UInt8], quick: Bool = false) -> ID128 {
        let (first, second) = a.lexicographicallyPrecedes(b) ? (a, b) : (b, a)
        // The label and both commitments laid out in one buffer, the digest read in place (no
        // arrays: this runs once a game on each side).
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: keyLabel.utf8CodeUnitCount + first.count + second.count) { input in
            var i = 0
            keyLabel.withUTF8Buffer { for b in $0 { input[i] = b; i += 1 } }
            for b in first { input[i] = b; i += 1 }
            for b in second { input[i] = b; i += 1 }
            return withUnsafeTemporaryAllocation(byteCount: 32, alignment: 1) { d in
                RollHash.digest(UnsafeRawBufferPointer(input), quick: quick, into: d)
                let digest = UnsafeRawBufferPointer(d)
                return ID128(high: UInt64(bigEndian: digest.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                             low: UInt64(bigEndian: digest.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            }
        }
    }

    private static let keyLabel: StaticString = "tictac game key"

    /// A stored roll was quick (Protocol.md §8): `key` is the one BLAKE2b makes from our secret's
    /// commitment and the peer's (the two hashes make different keys).
    public static func isQuick(key: ID128, secret: [UInt8], theirCommitment: [UInt8]) -> Bool {
        let ours = secret.withUnsafeBytes { input in
            withUnsafeTemporaryAllocation(byteCount: 32, alignment: 1) { d in
                RollHash.digest(input, quick: true, into: d)
                return Array(UnsafeRawBufferPointer(d))
            }
        }
        return make(ours, theirCommitment, quick: true) == key
    }

    /// SHA-256 over the game's key and its moves (each cell as 2 big-endian bytes): two sides
    /// with the same digest hold the same move list.
    public static func digest(key: ID128, moves: some Collection<Int>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array("tictac moves".utf8))
        hasher.update(data: key.bytes)
        for cell in moves { hasher.update(data: [UInt8(truncatingIfNeeded: cell >> 8), UInt8(truncatingIfNeeded: cell)]) }
        return Array(hasher.finalize())
    }
}
