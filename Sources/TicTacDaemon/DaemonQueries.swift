import TicTacAPI
import TicTacDaemonCore
import TicTacDiscoveryCore
import TicTacEngine

/// Narrow questions the fronts and runners ask the daemon, so none of them reaches into its core
/// (and none copies a whole game session to learn one field of it).
extension Daemon {
    /// The configuration the daemon runs with (name, instance id, rematch delay...).
    public var config: DaemonConfig { core.config }

    /// The peers of the lobby, as `peers` lists them.
    public var peers: [PeerInfo] { core.peers }

    /// Our player allows watchers of its games (Protocol.md §14).
    public var spectatorsAllowed: Bool { core.spectatorsAllowed }

    /// The board of the game in play, nil outside a game.
    public var currentGameSize: BoardSize? { core.currentGameSize }

    /// Whether a game is in play.
    public var inGame: Bool { core.currentGameSize != nil }

    /// Where a link stands: handshaking, proven (to whom), or closed.
    public func linkProgress(_ id: LinkID) -> LinkProgress { core.linkProgress(id) }

    /// A match whose game is over and whose next game has not started (the rematch delay).
    public var betweenGames: Bool { core.currentGame?.state == .done }

    /// Where our player is now, as the events a front starting from nothing needs
    /// (DaemonCore.snapshot).
    public var snapshot: [DaemonEvent] { core.snapshot(now: reactor.now) }

    /// The daemons discovery sees now (empty before discovery starts).
    public var presencePeers: [PresencePeer] { presence?.peers ?? [] }
}
