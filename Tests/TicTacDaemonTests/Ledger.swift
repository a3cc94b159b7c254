import TicTacEngine
import TicTacStore
import TicTacWire

/// One side's stored history by game key: its moves and how it stands.
struct Ledger {
    struct Game: Equatable, CustomStringConvertible {
        var moves: [Int]
        var state: GameRecord.State
        var result: GameResult?
        var description: String { "\(state.rawValue) \(result?.rawValue ?? "-") \(moves)" }
    }
    var games: [ID128: Game] = [:]
    /// Results recorded with no key (a roll that never decided on this side), by match: they
    /// must mirror too (a roll whose link is lost is kept and decided later, never a forfeit).
    var unkeyed: [ID128: [GameResult]] = [:]

    init(_ history: [GameRecord]) {
        for g in history {
            guard let key = g.key else {
                if let r = g.result { unkeyed[g.matchID, default: []].append(r) }
                continue
            }
            games[key] = Game(moves: g.moves.map(\.cell), state: g.state, result: g.result)
        }
    }

    /// Nil when both sides hold the same games, moves and mirrored results, none void.
    func disagreement(with other: Ledger) -> String? {
        let mirror: [GameResult: GameResult] = [.won: .lost, .lost: .won, .draw: .draw]
        for m in Set(unkeyed.keys).union(other.unkeyed.keys) {
            let a = (unkeyed[m] ?? []).map { $0.rawValue }.sorted(), b = (other.unkeyed[m] ?? []).compactMap { mirror[$0]?.rawValue }.sorted()
            if a != b { return "unkeyed results \(a) / mirrored \(b)" }
        }
        for key in Set(games.keys).union(other.games.keys).sorted() {
            guard let a = games[key], let b = other.games[key] else {
                return "game \(key.description.prefix(8)) is recorded on one side only: \(games[key].map(String.init(describing:)) ?? "-") / "
                    + "\(other.games[key].map(String.init(describing:)) ?? "-")"
            }
            let what = "game \(key.description.prefix(8)): \(a) / \(b)"
            if a.state == .void || b.state == .void { return "\(what): void" }
            if a.moves != b.moves { return "\(what): the moves differ" }
            guard let ra = a.result, let rb = b.result else { return "\(what): unfinished" }
            if mirror[ra] != rb { return "\(what): the results do not mirror" }
        }
        return nil
    }
}
