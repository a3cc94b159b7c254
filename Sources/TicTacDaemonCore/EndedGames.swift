import TicTacEngine
import TicTacWire

/// A finished game as RESUME tells it to a peer that may have missed its end (Protocol.md §13).
public struct EndedGame: Sendable {
    public let key: ID128
    public let moves: [Int]
    public let weMovedFirst: Bool
    /// Our resignation (or our clock) ended it: told as status 1.
    public let resignedByUs: Bool
    /// Where its history is kept.
    public let match: ID128, size: BoardSize, number: Int
    /// It ended by a claim (Protocol.md §13): ours (told as status 4), or the peer's that our
    /// side accepted (status 5).
    public enum Claim: Sendable { case ours, theirs }
    public let claim: Claim?
    /// Our roll secret after a quick roll, up to the first move: the peer may have missed our
    /// ROLL and holds the roll undecided (Protocol.md §13).
    public let secret: [UInt8]?

    public init(key: ID128, moves: [Int], weMovedFirst: Bool, resignedByUs: Bool, match: ID128, size: BoardSize, number: Int,
                claim: Claim? = nil, secret: [UInt8]? = nil) {
        self.claim = claim
        self.secret = moves.count <= 1 ? secret : nil
        self.key = key
        self.moves = moves
        self.weMovedFirst = weMovedFirst
        self.resignedByUs = resignedByUs
        self.match = match
        self.size = size
        self.number = number
    }

    /// Our RESUME for it.
    var resume: Resume { resume(resignedByUs ? .resigned : claim == .ours ? .claimed : claim == .theirs ? .claimAccepted : .ready) }

    func resume(_ status: Resume.Status) -> Resume {
        Resume(key: key, moves: UInt16(moves.count), digest: GameKey.digest(key: key, moves: moves),
               last: moves.last.map { UInt16($0) }, status: status, secret: status == .unknown ? nil : secret)
    }

    /// What our history adds when the peer's RESUME for this game comes: its move that crossed
    /// our end (made, so kept on both sides), and a draw where two ends crossed as §8 settles
    /// them (two resignations; a resignation and a move that fills the board with no line).
    func settle(with r: Resume) -> [GameFact] {
        // A claim, or a busy answer, carries the sender's list as an offer does (a move of its
        // may have crossed our end).
        guard Self.tellsItsList(r.status) else { return [] }
        let draw = GameFact.ended(.draw, how: .crossed)
        let bothResigned = resignedByUs && r.status == .resigned
        switch Reconcile.decide(ours: moves, weMovedFirst: weMovedFirst, key: key, theirs: r) {
        case let .weMissTheirs(cell):
            let moved = GameFact.moved(number: moves.count + 1, cell: cell, byUs: false)
            return bothResigned || resignedByUs && fillsTheBoard(cell) ? [moved, draw] : [moved]
        case .same, .theyMissOurs:
            return bothResigned ? [draw] : []
        case .conflict:
            return []
        }
    }

    /// Statuses whose RESUME is the sender's own view of the game (its list, its end or claim).
    static func tellsItsList(_ status: Resume.Status) -> Bool {
        switch status {
        case .ready, .resigned, .busy, .claimed: true
        case .unknown, .claimAccepted, .claimRefused: false
        }
    }

    /// The peer's move on `cell` after ours ends the game drawn.
    private func fillsTheBoard(_ cell: Int) -> Bool {
        var board = Board(size: size)
        for (i, c) in (moves + [cell]).enumerated() {
            let ours = (i % 2 == 0) == weMovedFirst
            do { try board.place(ours ? (weMovedFirst ? .o : .x) : (weMovedFirst ? .x : .o), at: c) } catch { return false }
        }
        return board.outcome(after: cell) == .draw
    }
}

/// The last finished game with each peer whose end the peer may not have read: its link was
/// lost before the next game's roll decided (a decided roll means the peer read our RESET, or
/// our quick ROLL_COMMIT, and so everything before it). Offered once on the next link and answered from here, so the peer
/// learns the end it missed, and two ends that crossed are settled alike (Protocol.md §13).
struct EndedGames {
    struct Entry {
        var game: EndedGame
        /// The last link our RESUME for it went out on.
        var offeredOn: LinkID?
        /// The peer's RESUME for it was heard and settled: it is not offered again, only
        /// answered (a peer that missed our answer asks again).
        var settled = false
        /// What the peer's list adds to ours is recorded (once: a busy peer asks again later).
        var recorded = false
        /// The link's remote address it came from ("" from the history), and its prefix.
        var address = "", prefix = ""
    }

    private(set) var entries: [ID128: Entry] = [:]
    let limit: Int, perAddress: Int, perPrefix: Int

    init(limit: Int, perAddress: Int, perPrefix: Int) {
        self.limit = limit
        self.perAddress = perAddress
        self.perPrefix = perPrefix
    }

    /// `settled`: the peer told us its side already (the game ended on its RESUME). Past a
    /// bound, an entry of the same address, else of the same prefix, else of the prefix with the
    /// most, makes room: one host or one /24 cannot push out the others' (only a missed end is lost).
    mutating func keep(_ game: EndedGame, peer: ID128, address: String, settled: Bool = false, offeredOn: LinkID? = nil) {
        entries[peer] = nil
        let prefix = address.isEmpty ? "" : SourcePrefix.of(address)
        let same = entries.filter { !address.isEmpty && $0.value.address == address }
        let near = entries.filter { !prefix.isEmpty && $0.value.prefix == prefix }
        if same.count >= perAddress, let out = same.keys.first {
            entries[out] = nil
        } else if near.count >= perPrefix, let out = near.keys.first {
            entries[out] = nil
        } else if entries.count >= limit {
            let counts = Dictionary(grouping: entries.values, by: \.prefix).mapValues(\.count)
            if let most = counts.max(by: { $0.value < $1.value })?.key, let out = entries.first(where: { $0.value.prefix == most })?.key {
                entries[out] = nil
            }
        }
        entries[peer] = Entry(game: game, offeredOn: offeredOn, settled: settled, recorded: settled, address: address, prefix: prefix)
    }

    /// Our RESUME for the game with `peer`, to offer on `link` (once per link, until settled).
    mutating func offer(to peer: ID128, on link: LinkID) -> Resume? {
        guard var e = entries[peer], !e.settled, e.offeredOn != link else { return nil }
        e.offeredOn = link
        entries[peer] = e
        return e.game.resume
    }

    /// The peer's RESUME, when it is about a game we finished: our RESUMEs to send back (ours if
    /// this link has not had it), and the facts our history adds. Nil when the key is not ours.
    /// A claim for a game that ended before it (our move or our win it never read) is refused,
    /// and ours told again after the refusal, so the claimant reconciles from it (§13).
    mutating func received(_ r: Resume, from peer: ID128, on link: LinkID) -> (answers: [Resume], facts: [GameFact], game: EndedGame)? {
        guard var e = entries[peer], e.game.key == r.key else { return nil }
        var answers = e.offeredOn == link ? [] : [e.game.resume]
        if r.status == .claimed, e.game.claim == nil, !e.game.resignedByUs { answers = [e.game.resume(.claimRefused), e.game.resume] }
        e.offeredOn = link
        // Busy: it holds the game and asks again later; what its list adds is recorded now.
        let listed = !e.recorded && EndedGame.tellsItsList(r.status)
        let facts = listed ? e.game.settle(with: r) : []
        e.recorded = e.recorded || listed
        if r.status != .busy { e.settled = true }
        entries[peer] = e
        return (answers, facts, e.game)
    }
}
