// Spectators (Protocol.md §14, version 2): a watcher asks a player's daemon for the game it
// plays (WATCH) and is told it (WATCHING), then each move (WATCH_MOVE) and the end (WATCH_END),
// until either side stops (WATCH_STOP). GAMES lists a daemon's games for a watcher to pick.

/// WATCH: what a watcher asks of a player's daemon.
public struct Watch: Sendable, Equatable {
    public enum Action: UInt8, Sendable {
        /// Stop following (the daemon answers WATCH_STOP `stopped`).
        case stop = 0
        /// Follow a game in play: WATCHING, then its moves and its end.
        case follow = 1
        /// List the games in play (GAMES), follow nothing.
        case list = 2
    }

    public var action: Action
    /// Follow: the opponent whose game (a daemon playing several, a bot); nil: the daemon's
    /// own player's game, or the first a bot plays.
    public var opponent: ID128?

    public init(_ action: Action, opponent: ID128? = nil) {
        self.action = action
        self.opponent = opponent
    }
}

/// A player of a watched game: its instance id and name.
public struct WatchPlayer: Sendable, Equatable, Hashable {
    public var id: ID128
    public var name: DisplayName

    public init(id: ID128, name: DisplayName) {
        self.id = id
        self.name = name
    }
}

/// WATCHING: a game as it is now (a late watcher gets the moves so far).
public struct WatchedGame: Sendable, Equatable {
    /// Plays O: moved first.
    public var o: WatchPlayer
    public var x: WatchPlayer
    public var rows: UInt8
    public var cols: UInt8
    public var k: UInt8
    /// The cells played so far, in order (0-based, row-major): O's first.
    public var moves: [UInt16]
    /// Seconds per move (0: no clock).
    public var moveTime: UInt16
    /// The game's number within its match (1 for the first).
    public var number: UInt16

    public init(o: WatchPlayer, x: WatchPlayer, rows: UInt8, cols: UInt8, k: UInt8, moves: [UInt16],
                moveTime: UInt16, number: UInt16) {
        self.o = o
        self.x = x
        self.rows = rows
        self.cols = cols
        self.k = k
        self.moves = moves
        self.moveTime = moveTime
        self.number = number
    }
}

/// WATCH_END: how the followed game ended.
public struct WatchEnd: Sendable, Equatable {
    public enum How: UInt8, Sendable {
        /// A line of k.
        case line = 0
        /// The board filled with no line: a draw.
        case full = 1
        /// A player gave up: resigned, ran out of time, or left (forfeit).
        case gaveUp = 2
        /// No result: the link between the players was lost (the game may resume), or the
        /// match ended before one. A receiver reads an unknown value as this.
        case noResult = 3
    }

    /// `.o` or `.x`; `.empty` for a draw or no result.
    public var winner: UInt8
    public var how: How

    public init(winner: UInt8, how: How) {
        self.winner = winner
        self.how = how
    }
}

/// WATCH_STOP: why the daemon sends no more (or refuses to start).
public enum WatchStopReason: UInt8, Sendable, Equatable {
    /// The watcher asked, or the player's daemon is leaving. A receiver reads an unknown value as this.
    case stopped = 0
    /// The player allows no spectators.
    case off = 1
    /// No game in play (or none with the opponent named).
    case noGame = 2
    /// The game has as many watchers as the daemon serves (tictac: 16).
    case full = 3
    /// The match (or the link carrying it) ended: WATCH again to follow the player's next one.
    case over = 4
}

/// One game of a GAMES list: the serving daemon's opponent, the board, the moves so far.
public struct ListedGame: Sendable, Equatable {
    public var opponent: WatchPlayer
    public var rows: UInt8
    public var cols: UInt8
    public var k: UInt8
    public var moves: UInt16

    public init(opponent: WatchPlayer, rows: UInt8, cols: UInt8, k: UInt8, moves: UInt16) {
        self.opponent = opponent
        self.rows = rows
        self.cols = cols
        self.k = k
        self.moves = moves
    }

    /// Entries a GAMES list holds at most (Protocol.md §14).
    public static let maxPerList = 32

    /// The entries' bytes: per game the opponent's id, rows, columns, k, moves (u16), the
    /// name's length (u8) and the name.
    static func encode(_ games: [ListedGame]) -> [UInt8] {
        var out: [UInt8] = []
        for g in games.prefix(maxPerList) {
            out += g.opponent.id.bytes
            out += [g.rows, g.cols, g.k, UInt8(g.moves >> 8), UInt8(g.moves & 0xff)]
            let name = Array(g.opponent.name.value.utf8)
            out.append(UInt8(name.count))
            out += name
        }
        return out
    }

    /// Reads the entries back; nil when they do not fill the bytes exactly, a name is not a
    /// name, a size is 0, or there are more than `maxPerList`.
    static func decode(_ bytes: ArraySlice<UInt8>) -> [ListedGame]? {
        var out: [ListedGame] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard out.count < maxPerList, bytes.endIndex - i >= 22 else { return nil }
            let id = ID128(bytes: bytes[i..<(i + 16)])
            let rows = bytes[i + 16], cols = bytes[i + 17], k = bytes[i + 18]
            let moves = UInt16(bytes[i + 19]) << 8 | UInt16(bytes[i + 20])
            let n = Int(bytes[i + 21])
            i += 22
            guard rows > 0, cols > 0, k > 0, bytes.endIndex - i >= n,
                  let name = try? DisplayName(utf8: bytes[i..<(i + n)]) else { return nil }
            i += n
            out.append(ListedGame(opponent: WatchPlayer(id: id, name: name), rows: rows, cols: cols, k: k, moves: moves))
        }
        return out
    }
}
