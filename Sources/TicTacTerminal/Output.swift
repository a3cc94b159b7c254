import TicTacAPI
import TicTacDiscoveryCore
import TicTacEngine
import TicTacJSON
import TicTacWire

/// How a game ended, when an event before its game-over said why: a move clock ran out, or a
/// player left the running game (`yours`: our player).
public enum GameEnding: Sendable, Equatable {
    case time(yours: Bool)
    case left(yours: Bool)
}

extension DeclineReason {
    /// The plain mode's name for the reason.
    public var name: String {
        switch self {
        case .declined: "declined"
        case .busy: "busy"
        case .noAnswer: "no-answer"
        case .unsupported: "unsupported"
        }
    }
}

/// Renders events as JSON objects or as readable lines (the seed's strings).
public struct OutputFormatter: Sendable {
    public enum Style: Sendable { case json, text }
    public let style: Style
    /// The board of the game under way: text names a larger board's cells as they are typed
    /// (`c7`, CellName). The front sets it at each game-started.
    public var size = BoardSize.classic

    /// Why the game being played ends, once a time-up or a leaving said so (`note`): its
    /// game-over line says it too.
    public var ending: GameEnding?

    /// The agreed seconds per move of the game being played (its `rolls`), 0 for none: the
    /// turn's line says it when it runs.
    public var moveTime = 0

    /// A game-resumed came and its game's start has not been shown yet, and whether the start
    /// being shown now is that resumed game's (said as going on, not as new).
    private var resuming = false
    private(set) var resumedStart = false

    public init(style: Style) { self.style = style }

    /// Follows the events that shape later lines: call with every event before its lines.
    public mutating func note(_ event: DaemonEvent) {
        if case .gameResumed = event { resuming = true }
        guard case let .game(g, _) = event else { return }
        switch g {
        case let .gameStarted(_, _, size):
            self.size = size
            ending = nil
            (resumedStart, resuming) = (resuming, false)
        case let .rolls(_, _, seconds): moveTime = seconds
        case let .timeUp(yours, _): ending = .time(yours: yours)
        case let .left(yours, _): ending = .left(yours: yours)
        case .score: ending = nil // said with the game-over just before
        default: break
        }
    }

    /// The game-over's `reason` (JSON): line, draw (a full board), resigned, time, forfeit.
    func endReason(_ result: GameResult, line: [Int]?, resigned: Bool) -> String {
        switch ending {
        case .time: "time"
        case .left: "forfeit"
        case nil: line != nil ? "line" : resigned ? "resigned" : result == .draw ? "draw" : "forfeit"
        }
    }

    /// The line standing for `count` lines dropped because standard output was not being read
    /// (LineWriter; docs/plain-mode.md).
    public func gapLine(_ count: Int) -> String {
        switch style {
        case .json: JSON.object([("event", .string("output-dropped")), ("count", .int(count))]).serialized
        case .text: "(\(count) lines of output dropped: standard output was not being read)"
        }
    }

    /// The lines for one event (none for events a style does not show).
    public func lines(for event: DaemonEvent) -> [String] {
        switch (style, event) {
        case (.json, _): [json(event).serialized] // JSON escapes control characters itself
        case (.text, .help): text(event) // our own text, laid out on several lines
        case (.text, _): text(event).map(Self.escaped)
        }
    }

    /// A text line made safe for a terminal: every control character (C0, DEL, C1, U+2028,
    /// U+2029) and bidirectional formatting character is written as a visible escape (`\x1b`,
    /// `\u{202e}`), so text echoed from input (a bad command, a peer's name in an error)
    /// cannot drive the terminal or reorder the line.
    package static func escaped(_ line: String) -> String {
        guard line.unicodeScalars.contains(where: needsEscape) else { return line }
        var out = ""
        for scalar in line.unicodeScalars {
            guard needsEscape(scalar) else { out.unicodeScalars.append(scalar); continue }
            let hex = String(scalar.value, radix: 16)
            out += scalar.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" : "") + hex : "\\u{\(hex)}"
        }
        return out
    }

    private static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029
            || (0x202A...0x202E).contains(s.value) || (0x2066...0x2069).contains(s.value)
            || s.value == 0x200E || s.value == 0x200F || s.value == 0x061C
    }

    /// The line for a player who left a running game once the other's roll was out (Protocol.md
    /// §8): a loss by forfeit. The game-over line follows.
    public static func leftText(yours: Bool, inRoll: Bool, opponent: String) -> String {
        switch (yours, inRoll) {
        case (true, true): "You left during the roll: \(opponent) wins by forfeit"
        case (true, false): "You left the game: \(opponent) wins by forfeit"
        case (false, true): "\(opponent) left during the roll: you win by forfeit"
        case (false, false): "\(opponent) left the game: you win by forfeit"
        }
    }

    /// The line for a clock that ran out (Protocol.md §9); the game-over line follows.
    public static func timeUpText(yours: Bool, clock: Clock, opponent: String) -> String {
        switch (yours, clock) {
        case (true, .move): "Time's up: you did not move in time"
        case (false, .move): "Time's up: \(opponent) did not move in time"
        case (true, .roll): "Time's up: your roll was not revealed in time"
        case (false, .roll): "Time's up: \(opponent) did not reveal its roll in time and forfeits"
        }
    }

    private func text(_ event: DaemonEvent) -> [String] {
        switch event {
        case let .ready(name, id, port): return ["Ready: \(name) (\(id.description.prefix(8))) listening on port \(port)"]
        case let .peers(list):
            guard !list.isEmpty else { return ["Available Peers: none yet"] }
            return ["Available Peers:"] + list.map { "  \($0.name)  \($0.id.description.prefix(8))  \($0.address)  \($0.state)" }
        case let .peerFound(p): return ["Peer found: \(p.name) (\(p.id.description.prefix(8))) at \(p.address), \(p.state)\(p.kindNote)"]
        case let .peerLost(p, reason): return ["Peer lost: \(p.name) (\(reason))"]
        // Worded as "Peer found" is, so it never reads like an answer: "Peer bob is busy" right
        // after an invitation to bob looked like bob's DECLINE `busy` ("bob is busy").
        case let .peerUpdated(p): return ["Peer updated: \(p.name) (\(p.id.description.prefix(8))) at \(p.address), \(p.state)\(p.kindNote)"]
        case let .invited(p, size):
            let board = size == .classic ? "" : " on \(size.rows)x\(size.cols), \(size.k) in a row"
            return ["\(p.name) invites you to play\(board): accept or decline?"]
        case let .inviteSent(p): return ["Invitation sent to \(p.name); waiting for an answer"]
        case let .inviteCancelled(p): return ["\(p.name) withdrew the invitation"]
        case let .inviteExpired(p): return [Self.inviteExpiredText(p)]
        case let .inviteHeld(p, size, ahead): return [Self.inviteHeldText(p, size: size, ahead: ahead)]
        case let .heldInviteDeclined(p): return [Self.heldInviteDeclinedText(p)]
        case let .declined(p, reason):
            switch reason {
            case .declined: return ["\(p.name) declined"]
            case .busy: return ["\(p.name) is busy"]
            case .noAnswer: return ["No answer from \(p.name)"]
            case .unsupported: return ["\(p.name) cannot play that board"]
            }
        case let .disconnected(p, reason):
            if reason == DaemonEvent.leftReason(p.name) { return [reason] } // it said goodbye: not a fault
            return ["Peer Disconnected! \(Self.disconnectedText(p, reason: reason))"]
        case let .gameInterrupted(p, window, reason):
            return [Self.interruptedText(p, seconds: Self.seconds(window), reason: reason, keys: "lobby adjourns the game, resign gives it up")]
        case let .gameResumed(p, resigned, _):
            return [resigned ? "\(p.name) resigned the game while you were apart" : "\(p.name) is back: the game goes on"]
        case let .gameAdjourned(p): return [Self.adjournedText(p)]
        case let .gameVoid(p, reason): return ["The game with \(p.name) cannot go on and counts for nobody: \(reason)"]
        case let .gameAbandoned(p, reason): return [Self.abandonedText(p, reason)]
        case let .gameClaimed(p, won, reason): return [Self.claimedText(p, won: won, reason)]
        case let .claimWithdrawn(p, reason): return [Self.withdrawnText(p, reason)]
        case let .matchEnded(p, byUs):
            return [byUs ? "You left the match with \(p.name): back in the lobby" : "\(p.name) left the match: back in the lobby"]
        case let .moveClock(opponent, yours, seconds):
            return [yours ? "\(seconds) s left to move" : "\(opponent.name) has \(seconds) s left to move"]
        case let .rematch(seconds, lobby):
            return ["New game in \(seconds) s: new starts it now" + (lobby ? ", lobby ends the match and goes back to the lobby" : "")]
        case let .error(_, message): return ["Error: \(message)"]
        case .protocolError, .connectFailed: return ["Error: \(Self.errorText(event) ?? "")"]
        case let .opponentSpectators(p, allowed): return [Self.spectatorsText(p, allowed: allowed)]
        case let .watched(_, p): return [Self.watchedText(p)]
        case let .help(text), let .notice(text): return [text]
        case let .watchers(n): return [Self.watchersText(n, undo: "spectators off")]
        case let .game(g, opponent):
            switch g {
            case let .gameStarted(piece, first, size):
                let board = "\(size.rows)x\(size.cols), \(size.k) in a row"
                if resumedStart {
                    return ["The game against \(opponent.name) goes on (\(board)): you play \(piece.symbol), \(first ? "you" : opponent.name) moved first"]
                }
                let order = first ? "you move first" : "\(opponent.name) moves first"
                return ["New game against \(opponent.name) on \(board): you play \(piece.symbol), \(order)"]
            case let .rolls(yours, theirs, moveTime):
                let clock = moveTime > 0 ? "\(moveTime) s per move" : "no move clock"
                return ["You rolled \(yours), \(opponent.name) rolled \(theirs): the higher roll moves first; \(clock)"]
            case let .timeUp(yours, clock):
                return [Self.timeUpText(yours: yours, clock: clock, opponent: opponent.name)]
            case let .left(yours, inRoll):
                return [Self.leftText(yours: yours, inRoll: inRoll, opponent: opponent.name)]
            // Under a minute a move's time matters from the start (as on the full screen).
            case .yourTurn: return ["Your Turn" + (0 < moveTime && moveTime < 60 ? " (\(moveTime) s to move)" : "")]
            case .opponentTurn: return ["Opponent's Turn" + (0 < moveTime && moveTime < 60 ? " (\(moveTime) s to move)" : "")]
            case let .turnClock(seconds):
                // Outside a resume it is a front attaching to a daemon mid-turn (docs/control.md).
                return ["\(seconds) s left to move" + (resumedStart ? ": the clock goes on from where the link was lost" : "")]
            case let .opponentMoved(cell):
                return [size == .classic ? "Opponent played \(cell + 1)"
                                         : "Opponent played \(CellName.name(cell, on: size)) (\(cell + 1))"]
            case let .board(board): return ["Board: \(board.text)"]
            case let .gameOver(result, line, resigned):
                var s: String
                switch result {
                case .won: s = "You Won!"
                case .lost: s = "Opponent Won!"
                case .draw: s = "Cat Wins! (a draw)"
                }
                if let line { s += " (line \(line.map { String($0 + 1) }.joined(separator: "-")))" }
                switch (ending, result) {
                case (.time, .won): s += " (time's up for \(opponent.name))"
                case (.time, _): s += " (time's up)"
                case (.left(true), _): s += " (you left: forfeit)"
                case (.left(false), _): s += " (\(opponent.name) left: forfeit)"
                case (nil, _): if resigned { s += result == .draw ? " (both resigned)" : " (by resignation)" }
                }
                return [s]
            case let .score(sc): return ["Score: won \(sc.won), lost \(sc.lost), drawn \(sc.drawn)"]
            case .interrupted: return ["Peer Disconnected! Your opponent has disconnected, or the connection has been lost"]
            }
        }
    }
}
