import TicTacAPI
import TicTacDaemonCore
import TicTacEngine
import TicTacTime
import TicTacWire

/// What the fixture records about the daemon to replay (its command line, in effect).
public struct ReplayedDaemon: Sendable {
    public var seed: UInt64
    public var name: String
    /// Nil for a player; a bot's level otherwise.
    public var bot: BotLevel?
    public var size: BoardSize
    public var moveTime: Duration
    public var peerTimeout: Duration
    /// The bot's node budget when the capture was made (a fixture keeps its own).
    public var botNodes: Int
    /// The highest protocol version the captured daemon spoke: the replay offers no more, so
    /// it sends the captured HELLO again (a version-1 capture stays version 1).
    public var maxVersion: UInt8
    /// A bot's `--max-games` when the fixture gives it (`DaemonConfig.maxBotGames`).
    public var maxGames: Int?

    public init(seed: UInt64, name: String, bot: BotLevel? = nil, size: BoardSize = .classic,
                moveTime: Duration = .seconds(120), peerTimeout: Duration = .seconds(5),
                botNodes: Int = Bot.defaultSearchNodes, maxVersion: UInt8 = 1) {
        self.botNodes = botNodes
        self.maxVersion = maxVersion
        self.seed = seed
        self.name = name
        self.bot = bot
        self.size = size
        self.moveTime = moveTime
        self.peerTimeout = peerTimeout
    }

    /// The configuration `tictac play` or `tictac bot --seed N` builds.
    public func config() throws(ReplayError) -> DaemonConfig {
        guard let display = try? DisplayName(name) else { throw .badFixture("name '\(name)' breaks the name rule") }
        let source = RandomSource(seed: seed)
        var config = DaemonConfig(name: display, capabilities: bot == nil ? [.tictactoe] : [.tictactoe, .bot],
                                  makeRandom: source.makeGenerator)
        config.size = size
        config.player = bot.map { .bot(Bot(level: $0)) } ?? .human
        config.moveTime = moveTime
        config.deadAfter = peerTimeout
        config.botNodes = botNodes
        config.maxBotGames = maxGames
        config.versions = ProtocolVersion.supported.lowerBound...max(ProtocolVersion.supported.lowerBound, maxVersion)
        if maxVersion >= 2 { config.capabilities.insert(.resume) } // every version-2 daemon can resume
        return config
    }
}

/// A fixture the replay cannot use.
public enum ReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    case badFixture(String)
    public var description: String {
        switch self { case let .badFixture(why): "bad fixture: \(why)" }
    }
}

/// Where the replayed daemon's output first differs from what the capture shows it sent.
public struct Divergence: Sendable, Equatable, CustomStringConvertible {
    /// The connection (the peer's endpoint).
    public var peer: Endpoint
    /// Byte offset in the stream our daemon sent on that connection.
    public var offset: Int
    /// The frame at that offset (0-based) and its type name, per the capture.
    public var frameIndex: Int
    public var expected: String
    public var replayed: String

    public var description: String {
        "stream to \(peer) diverges at byte \(offset) (frame \(frameIndex)): capture has \(expected), replay sent \(replayed)"
    }
}

/// The outcome of replaying one daemon of a capture.
public struct ReplayReport: Sendable {
    /// Connections of that daemon found in the capture.
    public var links = 0
    /// Bytes compared (sent by the daemon in the capture).
    public var bytesCompared = 0
    public var divergences: [Divergence] = []
    /// What the replayed daemon told its player, in order.
    public var events: [DaemonEvent] = []
    /// The player commands read off its frames, in order (`leave` for LEAVE).
    public var commands: [String] = []
    /// The traffic keys of its version-2 links, as it derived them (what `--key-log` writes).
    public var keys: [LinkKeys] = []

    /// Every link replayed byte for byte.
    public var matches: Bool { divergences.isEmpty && links > 0 }

    /// The results of the finished games, in order ("won", "lost", "draw").
    public var results: [String] {
        events.compactMap { e in
            guard case let .game(.gameOver(result, _, _), _) = e else { return nil }
            return "\(result)"
        }
    }
}
