#if canImport(Glibc)
import Glibc
#endif
import Logging
import TicTacAPI
import TicTacNet

/// `tictac daemon`.
public struct ServiceConfiguration: Sendable {
    public var daemon: DaemonSettings
    /// Seconds asked for per move (0: none), as `tictac play`.
    public var moveTime = 120
    /// `--stop`: ask the running daemon to leave, and wait until it has.
    public var stop = false

    public init(daemon: DaemonSettings) { self.daemon = daemon }
}

/// `tictac daemon`: the player's daemon without a front (docs/control.md). It announces, keeps
/// and resumes games and records history while fronts attach and leave through its control
/// socket; a front that leaves mid-game leaves the game running on its clock.
public enum DaemonApp {
    public static func run(_ config: ServiceConfiguration) throws(AppFailure) -> Int32 {
        let setup = DaemonSetup(settings: config.daemon)
        if config.stop { return try ControlCall.stop(setup) }
        let logNotice = try LogSetup.bootstrap(config.daemon.log)
        let state = setup.openState()
        defer { state.close() } // what is logged is in the store when the command ends
        guard let directory = state.directory else {
            // A service without its directory would be found by no front: refused, not run on a throwaway id.
            if case let .inUse(path)? = state.directoryError {
                throw AppFailure(.unavailable, "\(path) is in use by another tictac (play, bot or daemon): one daemon per state directory")
            }
            throw AppFailure(.cantCreate, state.directoryError?.description ?? "no state directory (neither XDG_STATE_HOME nor HOME is set)")
        }
        guard let socket = ControlPath.socket(state: directory.path) else { throw AppFailure(.config, "no control socket path") }
        if let problem = ControlPath.prepare(socket) { throw AppFailure(.cantCreate, problem) }
        let peers = try setup.peers()
        let reactor = try AppFailure.attempt(.osErr, nil) { try Reactor() }
        let daemon = try setup.makeDaemon(reactor: reactor, name: try setup.displayName(), capabilities: [.tictactoe],
                                          bot: nil, moveTime: .seconds(config.moveTime), state: state)
        let server = try AppFailure.attempt(.unavailable, "cannot serve the control socket \(socket)") {
            try ControlServer(reactor: reactor, path: socket)
        }
        let logger = Logger(label: "tictac.control")
        server.snapshot = { [unowned daemon] in daemon.snapshot }
        server.onLog = { logger.notice("\($0)") }
        server.onStop = { [unowned server] in server.onCommand?(.quit) }
        // A finished game with nobody at the seat ends its match: the peer is told, and the
        // next game does not start on a clock nobody watches (the lobby is where a front finds it).
        server.onUnattended = { [unowned daemon] in
            if daemon.betweenGames { try? daemon.command(.leaveMatch) }
        }
        let desktop = DesktopNotice(reactor: reactor)
        server.onUnansweredInvitation = { peer in
            logger.notice("\(peer.name) invites; no front is attached to answer (tictac play)")
            desktop?.show("tictac: an invitation", "\(peer.name) invites you to tic-tac-toe: tictac play answers")
        }
        let player = try AppFailure.attempt(.osErr, nil) { try NetworkPlayer(reactor: reactor, daemon: daemon, front: server) }
        // With no front attached a notice would be lost: the log has each one too.
        let notify: (String) -> Void = { [unowned player] text in
            logger.warning("\(text)")
            player.notify(text)
        }
        let notice = setup.startDiscovery(daemon, notify: notify)
        state.notify = notify
        let notices = state.notices + [notice, logNotice].compactMap { $0 }
        for text in notices { logger.warning("\(text)") }
        player.onReady = {
            let line = "tictac daemon: \(daemon.config.name) (\(daemon.config.instanceID.description.prefix(8))) on TCP port "
                + "\(daemon.port); control socket \(socket)\n"
            _ = line.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
            UnixSocket.notifyServiceManager("READY=1\nSTATUS=serving on TCP port \(daemon.port)")
        }
        player.onLeaving = { UnixSocket.notifyServiceManager("STOPPING=1") } // the runner then stops its front, the server
        try AppFailure.attempt(.osErr, nil) { try player.run(connectTo: peers, notices: notices.map { DaemonEvent.notice($0) }) }
        return player.exitStatus
    }
}

/// `tictac status` and `tictac invite`: questions and commands for a running `tictac daemon`.
public enum ControlApp {
    /// Prints where the player is (the lobby, an invitation, the game); 69 when no daemon runs.
    public static func status(stateDirectory: String?, json: Bool) throws(AppFailure) -> Int32 {
        try ControlCall.status(setup(stateDirectory), json: json)
    }

    /// Invites `who` (a name or id) from the running daemon; 1 when it refused, 69 when none runs.
    public static func invite(_ who: String, stateDirectory: String?, json: Bool) throws(AppFailure) -> Int32 {
        try ControlCall.invite(setup(stateDirectory), who: who, json: json)
    }

    private static func setup(_ stateDirectory: String?) -> DaemonSetup {
        var settings = DaemonSettings()
        settings.stateDirectory = stateDirectory
        return DaemonSetup(settings: settings)
    }
}
