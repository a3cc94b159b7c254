import TicTacEngine
import TicTacWire

/// How two move lists of one game are reconciled (Protocol.md §13): equal, or one longer by a
/// single move that its holder made (sent, never read); anything else is a conflict. Both
/// sides apply the same rule to the same two lists, so they agree without another message.
enum Reconcile: Equatable {
    case same
    /// The peer made one more move that never reached us: apply it.
    case weMissTheirs(Int)
    /// We made one more move that never reached the peer: it applies it.
    case theyMissOurs
    case conflict(String)

    static func decide(ours: [Int], weMovedFirst: Bool, key: ID128, theirs r: Resume) -> Reconcile {
        let n = Int(r.moves), m = ours.count
        let ourDigest = GameKey.digest(key: key, moves: ours)
        if n == m {
            return r.digest == ourDigest ? .same : .conflict("the two move lists differ")
        }
        if n == m + 1, let last = r.last {
            let theirsMoved = (m % 2 == 0) != weMovedFirst // move m+1 (index m) is the peer's
            guard theirsMoved else { return .conflict("the peer claims a move in our turn") }
            guard GameKey.digest(key: key, moves: ours + [Int(last)]) == r.digest else {
                return .conflict("the peer's moves do not extend ours")
            }
            return .weMissTheirs(Int(last))
        }
        if m == n + 1 {
            let oursMoved = (n % 2 == 0) == weMovedFirst
            guard oursMoved, GameKey.digest(key: key, moves: ours.prefix(n)) == r.digest else {
                return .conflict("our moves do not extend the peer's")
            }
            return .theyMissOurs
        }
        return .conflict("the move lists are \(m) and \(n) long")
    }
}
