import TicTacEngine

/// One line of plain-mode input (docs/plain-mode.md).
public enum Command: Sendable, Equatable {
    /// 1-based cell, row-major from the upper left.
    case move(Int)
    /// A cell by name, column letter then row (`c7`; CellName), resolved on the board in play.
    case moveAt(CellName.Ref)
    case new
    case resign
    case quit
    /// Ctrl-C in the full screen: leave like `quit`, with the exit status of an interrupt (130).
    case interrupt
    case help
    /// List the peers.
    case peers
    /// Invite a peer by name or id.
    case invite(String)
    case accept
    case decline
    /// Withdraw our invitation.
    case cancel
    /// End the match and go back to the lobby; a game in play is given up (a loss), as `new` does.
    case lobby
    /// Add a peer by address, `HOST:PORT` or `[IPV6]:PORT` (where discovery cannot reach).
    case connect(String)
    /// Open the collaborative field in this daemon (docs/field.md).
    case field
    /// Allow watchers of our games, or refuse them (nil: the other of what is now; Protocol.md §14).
    case spectators(Bool?)

    /// Why a line is not a command.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Longest line accepted; longer input is refused, never buffered without bound.
    public static let maxLineBytes = 256

    /// Parses `move N` or `move c7` (or a bare `N` or `c7`), `new`, `resign`, `quit`, `help`, `peers`, `invite NAME|ID`,
    /// `accept`, `decline`, `cancel`. Verbs are case-insensitive; extra blanks are ignored.
    public static func parse(_ line: String) throws(ParseError) -> Command {
        guard line.utf8.count <= maxLineBytes else { throw ParseError(description: "line too long") }
        let words = line.lowercased().split(whereSeparator: \.isWhitespace)
        guard let verb = words.first else { throw ParseError(description: "empty command") }
        if verb == "invite" || verb == "i" {
            // The peer's name keeps its case and inner spaces: everything after the verb.
            let chars = Array(line)
            var start = chars.firstIndex { !$0.isWhitespace } ?? chars.count
            while start < chars.count, !chars[start].isWhitespace { start += 1 } // skip the verb
            var end = chars.count
            while end > start, chars[end - 1].isWhitespace { end -= 1 }
            let who = start < end ? String(chars[start..<end]).drop { $0 == " " || $0 == "\t" } : ""
            guard !who.isEmpty else { throw ParseError(description: "usage: invite NAME or invite ID") }
            return .invite(String(who))
        }
        /// A cell number, checked before any arithmetic: no board has more than 20 x 20 cells.
        func cell(_ text: Substring) throws(ParseError) -> Int {
            let most = BoardSize.dimensionRange.upperBound * BoardSize.dimensionRange.upperBound
            guard let n = Int(text), (1...most).contains(n) else {
                throw ParseError(description: "no cell '\(text.prefix(12))': name a cell by column letter and row (c7) or by number (1 to rows x cols)")
            }
            return n
        }
        func noArgs(_ c: Command) throws(ParseError) -> Command {
            guard words.count == 1 else { throw ParseError(description: "'\(verb)' takes no argument") }
            return c
        }
        /// A cell by name (`c7`) or by number (`12`).
        func target(_ text: Substring) throws(ParseError) -> Command {
            if let ref = CellName.parse(text) { return .moveAt(ref) }
            return .move(try cell(text))
        }
        switch verb {
        case "move", "m":
            guard words.count == 2 else { throw ParseError(description: "usage: move c7 (column letter, row number) or move N (cell number)") }
            return try target(words[1])
        case "new", "n": return try noArgs(.new)
        case "resign", "r": return try noArgs(.resign)
        case "quit", "q", "exit": return try noArgs(.quit)
        case "help", "h", "?": return try noArgs(.help)
        case "peers", "p": return try noArgs(.peers)
        case "accept", "a", "y", "yes": return try noArgs(.accept)
        case "decline", "d", "no": return try noArgs(.decline)
        case "cancel", "c": return try noArgs(.cancel)
        case "lobby", "l": return try noArgs(.lobby)
        case "field", "f": return try noArgs(.field)
        case "spectators", "watchers":
            if words.count == 1 { return .spectators(nil) } // the other of what is now (the full screen's `w`)
            guard words.count == 2, words[1] == "on" || words[1] == "off" else { throw ParseError(description: "usage: spectators [on|off]") }
            return .spectators(words[1] == "on")
        case "connect":
            guard words.count == 2 else { throw ParseError(description: "usage: connect HOST:PORT") }
            // The address keeps its case (an IPv6 scope names an interface).
            let original = line.split(whereSeparator: \.isWhitespace)
            return .connect(String(original[original.count - 1]))
        default:
            if words.count == 1, verb.first.map({ $0.isNumber || $0 == "-" || $0 == "+" }) == true {
                return .move(try cell(verb))
            }
            if words.count == 1, let ref = CellName.parse(verb) { return .moveAt(ref) }
            throw ParseError(description: "unknown command '\(verb.prefix(32))' (try: move c7, move N, new, resign, quit; help lists them all)")
        }
    }

    /// `cancel` typed in a match, where no invitation of ours can be waiting.
    public static let cancelInGameText = "cancel withdraws an invitation you sent, and you are in a game: type resign to give this game up, new to give it up and start the next, lobby to end the match"
    /// `cancel` in a local game, which has no invitations.
    public static let cancelLocalText = "cancel withdraws an invitation, and a local game has none: type resign to give this game up, new to give it up and start the next"

    /// The answer to `help`.
    public static let helpText = "commands: move c7 (or just c7: column letter, row number from 1 at the top; the letters skip l n q r) or move N (or just N; cells 1..rows*cols, row-major from the upper left), new, resign, quit; with a network: peers, invite NAME|ID, accept, decline, cancel, lobby (end the match; a game in play is given up, a loss, as with new), field (the collaborative field; lobby comes back), connect HOST:PORT (a peer discovery cannot reach), spectators on|off (may others watch your games)"
}

extension Command {
    /// The plain-mode line that parses back to this command (a front attached to `tictac daemon`
    /// sends its commands as lines, docs/control.md).
    public var line: String {
        switch self {
        case let .move(n): "move \(n)"
        case let .moveAt(ref): "move \(ref.text)"
        case .new: "new"
        case .resign: "resign"
        case .quit, .interrupt: "quit"
        case .help: "help"
        case .peers: "peers"
        case let .invite(who): "invite \(who)"
        case .accept: "accept"
        case .decline: "decline"
        case .cancel: "cancel"
        case .lobby: "lobby"
        case let .connect(address): "connect \(address)"
        case .field: "field"
        case let .spectators(on): "spectators" + (on.map { $0 ? " on" : " off" } ?? "")
        }
    }
}
