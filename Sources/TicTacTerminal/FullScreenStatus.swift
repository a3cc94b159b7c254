import TicTacEngine
import TicTacWire

/// The full screen's words: the status line, the line under a finished game, the lobby's prompt.
extension FullScreenModel {
    /// The game's status line, in the seed's words (in a hot-seat game, the players' names).
    var statusText: String? {
        guard let game else { return nil }
        if hotSeat {
            let one = "\(playerOne) (\(game.piece.symbol))", two = "\(game.opponent.name) (\(game.piece.opponent.symbol))"
            switch game.phase {
            case .rolling: return "Rolling dice\(ellipsis)"
            case .yourTurn: return "\(one) to move"
            case .opponentTurn: return "\(two) to move"
            case let .over(result, _, resigned):
                if case .time = game.ending, result != .draw { return "\(result == .won ? playerOne : game.opponent.name) Won! (time's up)" }
                switch result {
                case .won: return "\(playerOne) Won!" + (resigned ? " (\(game.opponent.name) resigned)" : "")
                case .lost: return "\(game.opponent.name) Won!" + (resigned ? " (\(playerOne) resigned)" : "")
                case .draw: return "Cat Wins! (a draw)"
                }
            }
        }
        let turn = [clockText, lastMoveText].compactMap { $0 }.map { " \(statusSeparator) \($0)" }.joined()
        if let waiting, waiting.peer.id == game.opponent.id { return "Waiting for \(waiting.peer.name)" } // no turn runs meanwhile
        switch game.phase {
        case .rolling: return "Rolling dice\(ellipsis)"
        case .yourTurn: return "Your Turn" + turn
        case .opponentTurn: return "Opponent's Turn" + turn
        case let .over(result, _, resigned):
            switch (result, game.ending) {
            case (.won, .time): return "You Won! (time's up for \(game.opponent.name))"
            case (.lost, .time): return "Opponent Won! (time's up)"
            case (.won, .left): return "You Won! (\(game.opponent.name) left: forfeit)"
            case (.lost, .left): return "Opponent Won! (you left: forfeit)"
            case (.won, _): return resigned ? "You Won! (your opponent resigned)" : "You Won!"
            case (.lost, _): return resigned ? "Opponent Won! (you resigned)" : "Opponent Won!"
            case (.draw, _): return resigned ? "Cat Wins! (a draw: both resigned)" : "Cat Wins! (a draw)"
            }
        }
    }

    /// The separator between the parts of the status line.
    private var statusSeparator: String { unicode ? "·" : "-" }

    /// A confirmation's question in at most 38 columns, for a 40-column window.
    var shortFollowUpText: String? {
        switch confirm {
        case .resign: "Resign this game? r/y: yes, other: no"
        case .newGame: "Give up, new game? n/y: yes, other: no"
        case .quit: "Quit and adjourn? q/y: yes, other: no"
        case .lobby: "Give up for lobby? l/y: yes, other: no"
        case nil: followUpText
        }
    }

    /// The line under a finished game, or a confirmation waiting.
    var followUpText: String? {
        switch confirm {
        case .resign: return "Resign this game? r or y: yes, any other key: no"
        case .newGame: return "Give up this game and start a new one? n or y: yes, any other key: no"
        case .quit: return "Quit and adjourn this game? q or y: yes, any other key: no"
        case .lobby: return "Give this game up and go back to the lobby? l or y: yes, any other key: no"
        case nil: break
        }
        if game?.gone != nil { return "Any key: back to the lobby" }
        guard let countdown, let game, case .over = game.phase else { return nil }
        let lobby = me == nil ? "" : "  l: lobby"
        let when = countdown > 0 ? "New game in \(countdown)\(ellipsis)" : "New game starting\(ellipsis)"
        return "\(when)  n: now\(lobby)"
    }

    /// `promptText` in `width` columns: an invitation's answer keys come first when the whole
    /// line does not fit, so the name is what gets cut, never y / n.
    func promptText(fitting width: Int) -> String? {
        guard let prompt = promptText, textWidth(prompt) > width, let incoming else { return promptText }
        let size = incoming.size
        let rest = " invites you" + (size == .classic ? "" : " (\(size.rows)x\(size.cols))")
        let keys = "y / n: "
        return keys + clip(incoming.peer.name, max(1, width - textWidth(keys + rest))) + rest
    }

    /// What `?` shows: every key of the screen at hand.
    var keyHelpText: String {
        if game != nil {
            let play = game?.size == .classic ? "1-9 plays a cell" : "a cell's name (c7) then Enter plays it"
            let lobby = me == nil ? "" : ", l gives the game up and goes to the lobby"
            return "Keys: \(play); arrows and Enter play the cursor's cell; r resigns; n gives up and starts a new game\(lobby); q quits"
        }
        var keys = ["Up/Down select a peer", "Enter invites it", "y / n answer an invitation", "c withdraws yours"]
        if me != nil { keys.append("a adds a peer by address"); keys.append("w allows or refuses watchers") }
        if offersField { keys.append("f opens the field") }
        return "Keys: " + keys.joined(separator: ", ") + ", q quits"
    }

    /// The line under the peer list: an invitation to answer, or ours waiting.
    var promptText: String? {
        if let addressEntry { return "Add a peer by address (host:port): \(addressEntry)_   Enter connect, Esc cancel" }
        if let incoming {
            let size = incoming.size
            let board = size == .classic ? "" : " on \(size.rows)x\(size.cols), \(size.k) in a row"
            return "\(incoming.peer.name) invites you to play\(board): y / n"
        }
        if let outgoing { return "Waiting for \(outgoing.name)\(ellipsis) (c to cancel)" }
        return nil
    }

    /// The key help: what fits in `width`, dropping the least needed keys first; `q quit`
    /// always stays.
    func helpLine(width: Int) -> ScreenLine {
        // (text, priority): lower priorities go first when the line is too long.
        var items: [(String, Int)]
        if game?.gone != nil {
            items = [("any key lobby", 4)]
        } else if let game, case .over = game.phase {
            // Between games: no move to play, nothing to resign (the countdown names n and l).
            items = [("n new game now", 4)]
            if me != nil { items.append(("l lobby", 3)) }
        } else if let game {
            let play = game.size == .classic ? "1-9 or Enter play" : "c7 or Enter play"
            items = [("arrows move", 1), (play, 4), ("r resign", 3), ("n new", 2)]
            if me != nil { items.append(("l lobby", 2)) }
        } else if incoming != nil {
            items = [("y accept", 8), ("n decline", 8)] // the answer keys stay at any width
        } else {
            items = [((unicode ? "↑↓" : "Up/Down") + " select", 1), ("Enter invite", 4)]
            if offersField { items.append(("f field", 2)) }
            if me != nil { items.append(("a add address", 2)) }
        }
        items.append(("? help", 2))
        items.append(("q quit", 9))
        let room = width - Self.margin.count
        while textWidth(items.map(\.0).joined(separator: "  ")) > room,
              let i = items.indices.filter({ items[$0].1 < 9 }).min(by: { items[$0].1 < items[$1].1 }) {
            items.remove(at: i)
        }
        return ScreenLine(Self.margin + items.map(\.0).joined(separator: "  "), .help)
    }

}
