import TicTacEngine
import TicTacWire

/// The full-screen model's keys: what each key does in the lobby, while typing an address, and in
/// a game, and the command it stands for.
extension FullScreenModel {
    /// A game against a peer on the network is on: leaving it (q, l) gives it to the peer.
    private var networkGameInProgress: Bool {
        guard me != nil, let game else { return false }
        switch game.phase {
        case .over, .rolling: return false
        default: return true
        }
    }

    /// Handles one key; returns the command it stands for, if any.
    package mutating func key(_ key: Key) -> Command? {
        if addressEntry != nil, game == nil, incoming == nil { return addressKey(key) }
        switch key {
        case .interrupt:
            return .interrupt
        case .char("q") where !networkGameInProgress || attached, .char("Q") where !networkGameInProgress || attached:
            return .quit // a networked game in progress asks first (gameKey); an attached front's goes on
        case .char("?"):
            notice = Notice(text: keyHelpText, tone: .info)
            return nil
        default:
            break
        }
        if incoming != nil {
            switch key {
            case .char("y"), .char("Y"):
                incoming = nil
                notice = Notice(text: "Rolling dice\(ellipsis)", tone: .info)
                return .accept
            case .char("n"), .char("N"):
                incoming = nil
                notice = nil
                return .decline
            default:
                break
            }
        }
        if let peer = outgoing, key == .char("c") || key == .char("C") || key == .escape {
            outgoing = nil
            notice = Notice(text: "Invitation to \(peer.name) withdrawn", tone: .info)
            return .cancel
        }
        return game == nil ? lobbyKey(key) : gameKey(key)
    }

    private mutating func lobbyKey(_ key: Key) -> Command? {
        switch key {
        case .up:
            select(step: -1)
        case .down:
            select(step: 1)
        case .enter:
            if let incoming {
                // The invitation on screen waits for y / n: Enter on its sender says yes (the
                // daemon's rule for invitations that meet), on anyone else it says so.
                guard selectedPeer?.id == incoming.peer.id else {
                    notice = Notice(text: "Answer \(incoming.peer.name)'s invitation first: y / n", tone: .error)
                    return nil
                }
                return self.key(.char("y"))
            }
            guard let peer = selectedPeer else { return nil }
            if let outgoing {
                notice = Notice(text: "Your invitation to \(outgoing.name) is still waiting: c to cancel it", tone: .error)
                return nil
            }
            return .invite(peer.id.description)
        case .char("w") where me != nil, .char("W") where me != nil:
            return .spectators(nil) // watchers of our games: allowed or refused (Protocol.md §14)
        case .char("f"), .char("F"):
            if offersField {
                notice = nil // the lobby's news is old by the time the field closes
                return .field
            }
        case .char("a"), .char("A"):
            if me != nil { addressEntry = "" } // a networked lobby only
        default:
            break
        }
        return nil
    }

    /// Typing an address: printable characters, Backspace, Enter to connect, Esc to stop.
    private mutating func addressKey(_ key: Key) -> Command? {
        switch key {
        case .interrupt: return .interrupt
        case .escape:
            addressEntry = nil
        case .backspace:
            if addressEntry?.isEmpty == false { addressEntry?.removeLast() }
        case .enter:
            let text = addressEntry ?? ""
            addressEntry = nil
            return text.isEmpty ? nil : .connect(text)
        case let .char(c):
            if (addressEntry?.count ?? 0) < 80 { addressEntry?.append(c) }
        default:
            break
        }
        return nil
    }

    private mutating func gameKey(_ key: Key) -> Command? {
        guard let game else { return nil }
        if game.gone != nil {
            self.game = nil // the finished game stayed for a look; any key moves on to the lobby
            return nil
        }
        let size = game.size
        let row = cursor / size.cols, col = cursor % size.cols
        if cellEntry != nil, let command = entryKey(key, size: size) { return command.command }
        if let asked = confirm {
            confirm = nil
            let (again, command, no): (Character, Command, String) = switch asked {
            case .resign: ("r", .resign, "Not resigned: play on")
            case .newGame: ("n", .new, "No new game: play on")
            case .quit: ("q", .quit, "Not quitting: play on")
            case .lobby: ("l", .lobby, "Staying in this game: play on")
            }
            if key == .char(again) || key == .char(Character(again.uppercased())) || key == .char("y") || key == .char("Y") {
                if asked == .newGame { carriedNote = "You gave up the last game: it counts as a loss" }
                if asked == .lobby { carriedNote = "You gave up the game: it counts as a loss" } // said in the lobby
                notice = nil // an earlier "Not resigned: play on" would contradict what happens now
                return command
            }
            notice = Notice(text: no, tone: .info)
            if key == .escape || key == .char("n") || key == .char("N") { return nil }
        }
        let inProgress: Bool = switch game.phase { case .over: false; default: true }
        // The game waits for its peer (Protocol.md §13): no move can be made, and l adjourns it,
        // which gives nothing away, so it is not asked; the waiting notice says both.
        if waiting?.peer.id == game.opponent.id {
            switch key {
            case .char("l"), .char("L"): return .lobby
            case .char("r"), .char("R"), .char("q"), .char("Q"): break
            case .up, .down, .left, .right: break
            default:
                showWaiting(again: true)
                return nil
            }
        }
        switch key {
        case .up: cursor = max(0, row - 1) * size.cols + col
        case .down: cursor = min(size.rows - 1, row + 1) * size.cols + col
        case .left: cursor = row * size.cols + max(0, col - 1)
        case .right: cursor = row * size.cols + min(size.cols - 1, col + 1)
        case .enter, .char(" "):
            return .move(cursor + 1)
        case let .char(c):
            if size == .classic, let d = c.wholeNumberValue, (1...9).contains(d), c.isASCII {
                cursor = d - 1
                return .move(d)
            }
            if let column = CellName.column(c), column < size.cols {
                // A column letter starts a cell's name (CellName): the row number follows.
                cellEntry = String(CellName.letter(column))
                cursor = row * size.cols + column
                return nil
            }
            switch c {
            case "r", "R":
                // One key must not give a game away: ask first (`confirm`).
                guard inProgress else { return nil }
                confirm = .resign
                return nil
            case "l", "L":
                guard me != nil else { return nil } // no lobby in a local game
                guard networkGameInProgress else { return .lobby }
                confirm = .lobby
                return nil
            case "q", "Q": // only a networked game in progress gets here (key(_:))
                confirm = .quit
                return nil
            case "n", "N":
                if inProgress {
                    confirm = .newGame
                    return nil
                }
                self.game?.phase = .rolling
                countdown = nil
                return .new
            default:
                if c.isASCII, c.isNumber {
                    notice = Notice(text: "Name a cell by its column letter, then its row: \(CellName.name(cursor, on: size))", tone: .error)
                }
                return nil
            }
        case .escape, .interrupt, .suspend, .backspace, .shiftUp, .shiftDown, .shiftLeft, .shiftRight:
            return nil // the front passes shifted arrows as plain ones
        }
        return nil
    }
}
