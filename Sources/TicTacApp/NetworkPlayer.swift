import TicTacAPI
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacNet
import TicTacTTY
import TicTacTerminal
import TicTacTime
import TicTacWire

/// A daemon with a person at the front: wires the daemon's events to the front and the front's
/// commands to the daemon; leaves through `RunnerLifecycle` (LEAVE to every peer first).
public final class NetworkPlayer {
    private let reactor: Reactor
    private let daemon: Daemon
    private let front: Front
    private let field: FieldSession?
    private let resolver: HostResolver
    private let lifecycle: RunnerLifecycle
    private var running = false
    private var pending: [DaemonEvent] = []
    private lazy var dials = DialReports(reactor: reactor, daemon: daemon) { [unowned self] in front.show($0) }

    /// - Parameters:
    ///   - field: the collaborative field this daemon also serves (`field` command, `f` key).
    ///   - lookup: how `connect HOST:PORT` resolves a name (off the loop; tests inject a slow one).
    public init(reactor: Reactor, daemon: Daemon, front: Front, field: FieldSession? = nil,
                lookup: @escaping HostResolver.Lookup = HostResolver.getaddrinfo) throws(NetError) {
        self.reactor = reactor
        self.daemon = daemon
        self.front = front
        self.field = field
        resolver = try HostResolver(reactor: reactor, lookup: lookup)
        lifecycle = RunnerLifecycle(reactor: reactor)
    }

    /// Runs once the daemon serves, just before the loop (a service manager is told READY).
    var onReady: () -> Void = {}
    /// Runs once when leaving starts (a service manager is told STOPPING).
    var onLeaving: () -> Void = {}

    /// The exit status once `run` returns: 130 after Ctrl-C, else 0.
    public var exitStatus: Int32 { lifecycle.exitStatus }

    /// Tells the player something (DNS-SD unavailable...): at once once running, else right
    /// after the ready line.
    public func notify(_ text: String) {
        if running { front.show(.notice(text)) } else { pending.append(.notice(text)) }
    }

    /// Runs until the player quits or a signal arrives.
    public func run(connectTo peers: [[SocketAddress]], notices: [DaemonEvent] = []) throws(NetError) {
        defer { front.stop(); dials.stop() } // gives the terminal back on every way out, errors included
        try lifecycle.start { [unowned self] deadline, done in
            onLeaving()
            field?.leave()
            front.stop()
            daemon.leave(within: deadline, then: done)
        }
        daemon.onEvent = { [unowned self] event in
            front.show(event)
            dials.check()
            if case let .invited(by, _) = event, let field, field.isOpen {
                field.front.show(.notice("\(by.name) invites you to tic-tac-toe: the lobby has it"))
            }
        }
        front.onCommand = { [unowned self] command in handle(command) }
        if let field {
            daemon.onPresence = { event in field.presence(event) }
            field.onLobby = { [unowned self] in closeField() }
            field.onQuit = { [unowned self] interrupted in interrupted ? lifecycle.interrupt() : lifecycle.quit() }
            (front as? FullScreenFront)?.offersField = true
        }
        let config = daemon.config
        (front as? PlainFront)?.rematchSeconds = Int(config.rematchDelay.wholeSecondsRoundedUp)
        (front as? ControlServer)?.rematchSeconds = Int(config.rematchDelay.wholeSecondsRoundedUp)
        front.show(.ready(name: config.name.value, id: config.instanceID, port: daemon.port))
        for notice in notices + pending { front.show(notice) }
        pending = []
        running = true
        daemon.presence?.onNetworkChange = { [unowned self] available, interfaces in
            front.show(.notice(available ? "Network: looking for players on \(interfaces.joined(separator: ", "))"
                                         : "No network: only players on this host can be found"))
        }
        try front.start(reactor: reactor)
        for addresses in peers { dials.dial(addresses, as: addresses.first?.description ?? "") }
        onReady()
        try lifecycle.run()
    }

    private func handle(_ command: Command) {
        do throws(CommandError) {
            switch command {
            case .quit: lifecycle.quit()
            case .interrupt: lifecycle.interrupt()
            case .help: front.show(.help(Command.helpText))
            case .peers: front.show(.peers(daemon.peers))
            case let .invite(who): try daemon.command(.invite(who))
            case .accept: try daemon.command(.accept)
            case .decline: try daemon.command(.decline)
            case .cancel:
                do throws(CommandError) { try daemon.command(.cancel) } catch .nothingToCancel where daemon.inGame {
                    // In a match "no invitation" reads as if the game were not there: say what
                    // cancel is for and what ends a game.
                    front.show(.error(code: CommandError.nothingToCancel.code, message: Command.cancelInGameText))
                }
            case .lobby: try daemon.command(.leaveMatch)
            case let .connect(text): connect(text)
            case .field: openField()
            case let .spectators(on):
                let allowed = on ?? !daemon.spectatorsAllowed
                try daemon.command(.spectators(allowed))
                // Each front names its own way back: a key on the full screen, a command in plain mode.
                let undo = front is PlainFront || front is ControlServer ? "spectators \(allowed ? "off" : "on")" : "w in the lobby"
                front.show(.notice(allowed ? "Your games may be watched (tictac watch; \(undo) refuses it)"
                                           : "Nobody may watch your games now (\(undo) allows it again)"))
            case let .move(n): try daemon.command(.move(n - 1))
            case let .moveAt(ref):
                guard let size = daemon.currentGameSize else { throw CommandError.notInGame }
                switch CellName.resolve(ref, on: size) {
                case let .success(n): try daemon.command(.move(n - 1))
                case let .failure(e): front.show(.error(code: "illegal-move", message: e.description))
                }
            case .new: try daemon.command(.new)
            case .resign: try daemon.command(.resign)
            }
        } catch {
            front.show(.error(code: error.code, message: Self.message(error, for: command, on: daemon.currentGameSize)))
        }
    }

    /// A refused command's message; a refused move names its cell as the player does (CellName).
    static func message(_ error: CommandError, for command: Command, on size: BoardSize?) -> String {
        guard case let .game(.illegal(moveError)) = error, let size else { return error.description }
        if case let .moveAt(ref) = command { return CellName.message(moveError, on: size, typed: ref) }
        return CellName.message(moveError, on: size)
    }

    /// `connect HOST:PORT` (plain mode) or the lobby's `a`: the name resolves off the loop.
    private func connect(_ text: String) {
        resolver.resolve(text) { [weak self] answer in
            guard let self, !lifecycle.leaving else { return }
            switch answer {
            case let .success(addresses):
                dials.dial(addresses, as: text)
            case let .failure(error):
                front.show(.error(code: "bad-address", message: error.description))
            }
        }
    }

    /// The lobby's front gives way to the field's; plain lines become field commands until
    /// `lobby` (docs/field.md).
    private func openField() {
        guard let field else {
            return front.show(.error(code: "bad-command", message: "no field in this mode"))
        }
        guard !field.isOpen else { return }
        let plain = front as? PlainFront
        if plain == nil { front.stop() }
        do throws(NetError) {
            try field.open()
        } catch {
            field.close()
            try? front.start(reactor: reactor)
            return front.show(.error(code: "field", message: "the field cannot open: \(error)"))
        }
        plain?.interceptLine = { [unowned field] line in
            do throws(Command.ParseError) {
                field.command(try FieldCommand.parse(line))
            } catch {
                field.front.show(.error(code: "bad-command", message: error.description))
            }
            return true
        }
        // Plain mode's way back is a word the field's own commands do not list; `quit` ends tictac.
        plain?.show(.notice("in the field: lobby goes back to tic-tac-toe, quit leaves tictac, help lists the rest"))
    }

    private func closeField() {
        guard let field, field.isOpen else { return }
        field.close()
        if let plain = front as? PlainFront {
            plain.interceptLine = nil
            return plain.show(.notice("back in the lobby"))
        }
        do throws(NetError) { try front.start(reactor: reactor) } catch { lifecycle.quit() }
    }
}
