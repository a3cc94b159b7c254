import TicTacAPI
import TicTacDiscoveryCore
import TicTacEngine
import TicTacJSON
import TicTacWire

/// Plain mode's JSON lines: one object per event, its `event` name first (docs/plain-mode.md).
extension OutputFormatter {
    package static func peer(_ p: PeerInfo) -> [(String, JSON)] {
        [("id", .string(p.id.description)), ("name", .string(p.name)),
         ("addresses", .array(p.addresses.map { .string($0) })), ("port", p.port.map { .int(Int($0)) } ?? .null),
         ("state", .string(p.state.description)), ("via", .array(p.via.names.map { .string($0) })),
         ("program", p.program.map { .string($0) } ?? .null)]
    }

    static func who(_ p: PeerInfo) -> JSON { .object([("id", .string(p.id.description)), ("name", .string(p.name))]) }

    public func json(_ event: DaemonEvent) -> JSON {
        func ev(_ name: String, _ rest: [(String, JSON)] = []) -> JSON { .object([("event", .string(name))] + rest) }
        switch event {
        case let .ready(name, id, port):
            return ev("ready", [("name", .string(name)), ("id", .string(id.description)), ("port", .int(Int(port)))])
        case let .peers(list):
            return ev("peers", [("peers", .array(list.map { .object(Self.peer($0)) }))])
        case let .peerFound(p): return ev("peer-found", Self.peer(p))
        case let .peerLost(p, reason): return ev("peer-lost", Self.peer(p) + [("reason", .string(reason))])
        case let .peerUpdated(p): return ev("peer-updated", Self.peer(p))
        case let .invited(p, size):
            return ev("invited", [("from", Self.who(p)), ("rows", .int(size.rows)), ("cols", .int(size.cols)), ("k", .int(size.k))])
        case let .inviteSent(p): return ev("invite-sent", [("to", Self.who(p))])
        case let .inviteCancelled(p): return ev("invite-cancelled", [("by", Self.who(p))])
        case let .inviteExpired(p): return ev("invite-expired", [("by", Self.who(p))])
        case let .inviteHeld(p, size, ahead):
            return ev("invite-held", [("from", Self.who(p)), ("rows", .int(size.rows)), ("cols", .int(size.cols)),
                                      ("k", .int(size.k)), ("ahead", .int(ahead))])
        case let .heldInviteDeclined(p): return ev("held-invite-declined", [("by", Self.who(p))])
        case let .declined(p, reason): return ev("declined", [("by", Self.who(p)), ("reason", .string(reason.name))])
        case let .disconnected(p, reason):
            return ev("disconnected", [("peer", Self.who(p)), ("reason", .string(reason)),
                                       ("left", .bool(reason == DaemonEvent.leftReason(p.name)))])
        case let .gameInterrupted(p, window, reason):
            return ev("game-interrupted", [("opponent", Self.who(p)), ("seconds", .int(Self.seconds(window))), ("reason", .string(reason)),
                                           ("commands", .array([.string("lobby"), .string("resign")]))])
        case let .gameResumed(p, resigned, _): return ev("game-resumed", [("opponent", Self.who(p)), ("resigned", .bool(resigned))])
        case let .gameAdjourned(p): return ev("game-adjourned", [("opponent", Self.who(p))])
        case let .gameVoid(p, reason): return ev("game-void", [("opponent", Self.who(p)), ("reason", .string(reason))])
        case let .gameAbandoned(p, reason): return ev("game-abandoned", [("opponent", Self.who(p)), ("reason", .string(reason))])
        case let .gameClaimed(p, won, reason):
            return ev("game-claimed", [("opponent", Self.who(p)), ("result", .string(won ? "won" : "lost")), ("reason", .string(reason))])
        case let .claimWithdrawn(p, reason): return ev("claim-withdrawn", [("opponent", Self.who(p)), ("reason", .string(reason))])
        case let .matchEnded(p, byUs):
            return ev("match-ended", [("opponent", Self.who(p)), ("by", .string(byUs ? "you" : "opponent"))])
        case let .moveClock(_, yours, seconds):
            return ev("clock", [("who", .string(yours ? "you" : "opponent")), ("seconds", .int(seconds))])
        case let .rematch(seconds, lobby):
            return ev("rematch", [("seconds", .int(seconds)),
                                  ("commands", .array((lobby ? ["new", "lobby"] : ["new"]).map { .string($0) }))])
        case let .error(code, message):
            return ev("error", [("code", .string(code)), ("message", .string(message))])
        case .protocolError, .connectFailed:
            return ev("error", [("code", .string(Self.errorCode(event))), ("message", .string(Self.errorText(event) ?? ""))])
        case let .opponentSpectators(p, allowed):
            return ev("notice", [("message", .string(Self.spectatorsText(p, allowed: allowed)))])
        case let .watched(_, p):
            return ev("notice", [("message", .string(Self.watchedText(p)))])
        case let .help(text):
            return ev("help", [("message", .string(text))])
        case let .notice(text):
            return ev("notice", [("message", .string(text))])
        case let .watchers(n):
            return ev("notice", [("message", .string(Self.watchersText(n, undo: "spectators off"))), ("watchers", .int(n))])
        case let .game(g, opponent):
            switch g {
            case let .gameStarted(piece, first, size):
                return ev("game-started", [
                    ("opponent", .object([("id", .string(opponent.id.description)), ("name", .string(opponent.name))])),
                    ("piece", .string(String(piece.symbol))), ("first", .bool(first)),
                    ("rows", .int(size.rows)), ("cols", .int(size.cols)), ("k", .int(size.k)),
                    ("resumed", .bool(resumedStart)),
                ])
            case let .rolls(yours, theirs, moveTime):
                return ev("rolls", [("you", .int(yours)), ("opponent", .int(theirs)), ("move-time", .int(moveTime)),
                                    ("against", Self.who(opponent))])
            case let .timeUp(yours, clock):
                return ev("time-up", [("who", .string(yours ? "you" : "opponent")), ("clock", .string(clock.rawValue))])
            case let .left(yours, inRoll):
                return ev("forfeit", [("who", .string(yours ? "you" : "opponent")), ("during", .string(inRoll ? "roll" : "game")),
                                      ("message", .string(Self.leftText(yours: yours, inRoll: inRoll, opponent: opponent.name)))])
            case .yourTurn: return ev("your-turn", moveTime > 0 ? [("seconds", .int(moveTime))] : [])
            case .opponentTurn: return ev("opponent-turn", moveTime > 0 ? [("seconds", .int(moveTime))] : [])
            case let .turnClock(seconds): return ev("turn-clock", [("seconds", .int(seconds))])
            case let .opponentMoved(cell):
                return ev("opponent-moved", [("cell", .int(cell + 1)), ("name", .string(CellName.name(cell, on: size)))])
            case let .board(board):
                // `rows` top to bottom, as the board is drawn; `cells` is all of them in one string.
                let text = Array(board.text), cols = board.size.cols
                let rows = stride(from: 0, to: text.count, by: cols).map { JSON.string(String(text[$0..<min($0 + cols, text.count)])) }
                return ev("board", [("cells", .string(board.text)), ("rows", .array(rows))])
            case let .gameOver(result, line, resigned):
                return ev("game-over", [
                    ("result", .string(result.rawValue)),
                    ("line", line.map { .array($0.map { .int($0 + 1) }) } ?? .null),
                    ("resigned", .bool(resigned)),
                    ("reason", .string(endReason(result, line: line, resigned: resigned))),
                ])
            case let .score(s):
                return ev("score", [("won", .int(s.won)), ("lost", .int(s.lost)), ("drawn", .int(s.drawn))])
            case .interrupted:
                return ev("disconnected", [("reason", .string("Your opponent has disconnected, or the connection has been lost"))])
            }
        }
    }
}
