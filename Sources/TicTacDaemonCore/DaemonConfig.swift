import TicTacAPI
import TicTacDiscoveryCore
import TicTacEngine
import TicTacPbrain
import TicTacWire

/// How a daemon behaves; timers are Protocol.md §9's.
public struct DaemonConfig {
    /// The key pair that proves our instance id in every handshake (Protocol.md §4).
    public var identity: Identity
    /// Ours, derived from the identity's public key.
    public var instanceID: ID128 { identity.instanceID }
    public var name: DisplayName
    public var capabilities: Capabilities
    /// The protocol versions we offer in HELLO (Protocol.md §4). A replay of a capture offers
    /// only the capture's version, so it sends the captured bytes again.
    public var versions: ClosedRange<UInt8> = ProtocolVersion.supported
    /// Board offered in our invitations.
    public var size: BoardSize = .classic
    /// Who plays under our name: a human at a front (one game at a time), or the headless bot.
    public var player: Player = .human
    /// The program playing under our name, told in HELLO field 9 and ANNOUNCE field 13 (an
    /// engine bot's ABOUT: "pbrain-tiny 1.0"); lobbies show it as "(bot: pbrain-tiny 1.0)".
    public var program: DisplayName?
    /// Nodes the bot may search per move on a board larger than 3 x 3. A count, not a clock, so
    /// a bot's move is a function of the position and the seed (a capture replays exactly).
    public var botNodes: Int = Bot.defaultSearchNodes
    /// A bot's games on boards larger than 3 x 3 at most per source address (their moves are
    /// searches; one address cannot fill the search queue). Past it, INVITE gets DECLINE `busy`.
    public var maxLargeGamesPerAddress = 2
    /// A fresh generator per game and for ids: the system's in the app, seeded in tests.
    public var makeRandom: () -> any RandomNumberGenerator
    /// Silence after which we PING, and again at this pace while it lasts (Protocol.md §6: 1 s).
    /// Shorter is for tests against raw clients: below 1/8 s a peer that enforces §6's PING limit
    /// (as `maxPingsPerSecond` does here) would close the link.
    public var pingAfter: Duration = .seconds(1)
    public var deadAfter: Duration = .seconds(5)
    public var handshakeTimeout: Duration = .seconds(5)
    public var inviteTimeout: Duration = .seconds(30)
    public var rematchDelay: Duration = .seconds(3)
    /// PINGs a link may send within one second before it is closed as a flood (Protocol.md §6:
    /// a PING needs a second of silence, so a well-behaved peer sends at most one). Each is
    /// answered, so a flood that never reads its PONGs would hold up the loop (measured in
    /// docs/performance.md, tools/bench/hostility). 0: no limit (a benchmark that uses PING as
    /// an echo). Counted per second from the first PING of each.
    public var maxPingsPerSecond = 8
    /// The same over every link from one source address (Protocol.md §6): a peer PINGs a link
    /// only after a second of silence, so its links together send at most one each. 0: no limit.
    public var maxPingsPerAddressPerSecond = 64
    /// Handshakes a second (HELLOs on links we accepted) from one source address and from one
    /// network prefix (SourcePrefix); past them ERROR `busy` before any signature is made or
    /// checked (Protocol.md §5). 0: no limit.
    public var maxHandshakesPerAddressPerSecond = 32
    public var maxHandshakesPerPrefixPerSecond = 128
    /// Invitations a link may have declined within one second before it is closed as a flood
    /// (Protocol.md §5): each costs a DECLINE, and a peer that re-invites at once would keep
    /// the loop busy answering. 0: no limit.
    public var maxDeclinesPerLinkPerSecond = 8
    /// The same over every link from one source address (Protocol.md §5). 0: no limit.
    public var maxDeclinesPerAddressPerSecond = 32
    /// Ready links at most to one peer id (Protocol.md §4 keeps one, and a spare while a
    /// duplicate settles); past it a newly proven link is closed with ERROR `busy`.
    public var maxLinksPerPeer = 2
    /// Games a bot starts at most with one peer within a minute (Protocol.md §5); past it its
    /// invitations are declined `busy` and a match ends instead of its next game, so one peer
    /// cannot use up a bot's `--max-games` or its time with games it resigns at once. 0: no limit.
    public var maxGamesPerPeerPerMinute = 30
    /// A bot's `--max-games`: once that many games in which the opponent moved are over, no next
    /// game starts (the match ends), so none is left in its roll when the bot stops. Nil: no limit.
    public var maxBotGames: Int?
    /// Players a bot with a history takes on whom that history has never seen, per source
    /// address per hour (four times as many per network prefix): each such game stays in the
    /// history for good. 0: no limit.
    public var maxNewPlayersPerAddressPerHour = 20
    /// After a peer's invitation to our player lapsed or was declined, its next INVITE within
    /// this time is declined `busy` without asking our player (Protocol.md §8): a peer that
    /// renews its invitation as soon as it ends cannot keep our player busy for everyone.
    public var reinviteQuiet: Duration = .seconds(10)
    /// Invitations held for our player while it answers another one, one per source address at
    /// most (Protocol.md §8): each is shown, and asked in turn. Past it: DECLINE `busy`.
    public var maxHeldInvitations = 4
    /// The game events the front is given (`DaemonEvent.game`); the others are not built. The
    /// game itself runs the same whatever is left out.
    public var gameEvents: GameEventKinds = .all
    /// Seconds per move our player asks for; zero asks for no clock. The game uses the shorter
    /// of both players' nonzero asks; our daemon resigns for our player when it runs out, and
    /// ends a game whose peer overruns it by `GameSession.moveGrace` (Protocol.md §9).
    public var moveTime: Duration = .seconds(120)
    /// A history is kept: games queue `DaemonAction.record` for every start, move and end.
    public var keepsHistory = false
    /// Each opponent's score so far (from the history), carried on into new matches.
    public var scores: [ID128: Score] = [:]
    /// How long a game whose link was lost waits for its peer before it is adjourned
    /// (Protocol.md §13); zero: such a game ends as in version 1. Needs `.resume` in
    /// `capabilities` and a peer that has it.
    public var resumeWindow: Duration = .seconds(600)
    /// How long our player waits, free, for a peer that stays away before the game is claimed
    /// (Protocol.md §13); zero: never claimed. Only towards peers with `.claims`.
    public var adjournLimit: Duration = .seconds(3600)
    /// Games kept across a lost link at most, and finished ones remembered at most (Protocol.md
    /// §13): a stream of peers that each play a move and vanish cannot grow a daemon without end.
    /// Past it, a game whose link is lost ends as in version 1.
    public var maxKeptGames = 1024
    /// Kept games (and ended ones) at most from one source address and from one network prefix
    /// (SourcePrefix): a fill from one host or one /24 cannot crowd out an honest game.
    public var maxKeptGamesPerAddress = 16
    public var maxKeptGamesPerPrefix = 128
    /// Unfinished games from the history (a restart): offered to their peers when they are back.
    public var restored: [RestoredGame] = []
    /// Each peer's latest game from the history when it finished (a restart): the peer may not
    /// have read its end, and is told it on the next link (Protocol.md §13).
    public var restoredEnds: [RestoredEnd] = []
    /// Our games may be watched (Protocol.md §14; `--no-spectators` clears it).
    public var spectators = true
    /// Each version-2 link's traffic keys go out as `DaemonAction.keys` (`--key-log`).
    public var logsKeys = false
    /// Watchers served at most per game, and in all (Protocol.md §14: more are told `full`).
    public var maxWatchersPerGame = 16
    public var maxWatchers = 64
    /// A watcher's unsent frames at most, in bytes: past it the shell drops its link
    /// (`DaemonAction.boundQueue`), so a watcher that does not read is never buffered without end.
    public var maxWatcherBacklog = 16 * 1024
    /// WATCHes a link may send within one second; past it ERROR `unexpected-message` and the
    /// close (Protocol.md §14: each costs an answer). 0: no limit.
    public var maxWatchesPerSecond = 8
    /// Watchers served at most whose links come from one source address (Protocol.md §14:
    /// more are told `full`): one host holds at most an eighth of `maxWatchers`.
    public var maxWatchersPerAddress = 8
    /// SPECTATORS we send within one second at most (a change past it waits for the second to
    /// end), and a peer's we read (past it ERROR `unexpected-message`; 0: no limit). Protocol.md §14.
    public var maxSpectatorChangesPerSecond = 4
    public var maxSpectatorNoticesPerSecond = 8

    /// Without an `identity` (no `--identity` file), a fresh key comes from `makeRandom`, like
    /// everything random in the daemon.
    public init(identity: Identity? = nil, name: DisplayName, capabilities: Capabilities = [.tictactoe],
                makeRandom: @escaping () -> any RandomNumberGenerator) {
        if let identity {
            self.identity = identity
        } else {
            var rng = makeRandom()
            self.identity = Identity(using: &rng)
        }
        self.name = name
        self.capabilities = capabilities
        self.makeRandom = makeRandom
    }
}

/// Who plays under our name. The core asks its player rather than checking modes: a human's
/// invitations wait for the player's answer and it plays one game at a time (the seat); the bot
/// (BotPlayer) answers them itself, makes its moves, and plays any number of games at once.
public enum Player: Sendable {
    case human
    /// The headless bot: accepts every invitation it can afford, plays, starts the next game at
    /// once. `engine`: for a bot whose moves on k = 5 boards come from an external Gomocup
    /// engine (`tictac bot --engine`), the boards it plays; 3 x 3 stays the built-in bot's, and
    /// any other board is declined `unsupported`.
    case bot(Bot, engine: EngineBoards? = nil)

    public var isHuman: Bool { if case .human = self { true } else { false } }
}
