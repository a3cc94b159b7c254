#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacNet
import TicTacWire

/// What a front does: show events, and hand the player's commands to `onCommand`.
/// Plain mode and the full-screen terminal are two implementations of the same seat.
public protocol Front: AnyObject {
    var onCommand: ((Command) -> Void)? { get set }
    /// Starts reading input on the reactor.
    func start(reactor: Reactor) throws(NetError)
    func show(_ event: OutputEvent)
    /// Stops reading input and gives the terminal back as it was.
    func stop()
}

/// Plain mode: one command per line in, one event per line out (README "Plain mode").
public final class PlainFront: Front {
    public var onCommand: ((Command) -> Void)?
    /// When set, sees each line first and keeps those it returns true for (the field's commands
    /// while the field is open).
    public var interceptLine: ((String) -> Bool)?
    private var formatter: OutputFormatter
    private var rematch = RematchAnnouncer()
    private var input: StdinLines?
    /// Standard output, never blocking the daemon (README "Plain mode": output-dropped). The
    /// field's plain front writes through it too, so the two stay in order.
    public let output: LineWriter

    public init(json: Bool) {
        let formatter = OutputFormatter(style: json ? .json : .text)
        self.formatter = formatter
        output = LineWriter(gapLine: formatter.gapLine)
    }

    public func start(reactor: Reactor) throws(NetError) {
        output.attach(to: reactor)
        input = try StdinLines(reactor: reactor, onItem: { [unowned self] item in
            switch item {
            case .tooLong:
                show(.error(code: "bad-command", message: "line too long (at most \(Command.maxLineBytes) bytes)"))
            case let .line(text):
                guard !text.allSatisfy(\.isWhitespace) else { return }
                if let interceptLine, interceptLine(text) { return }
                let command: Command
                do throws(Command.ParseError) { command = try Command.parse(text) } catch {
                    return show(.error(code: "bad-command", message: error.description))
                }
                // `new` and `lobby` end a running game with no wait for a rematch to announce.
                rematch.endingOnCommand = command == .new || command == .lobby
                defer { rematch.endingOnCommand = false }
                onCommand?(command)
            }
        }, onEnd: { [unowned self] in onCommand?(.quit) })
    }

    public func show(_ event: OutputEvent) {
        if case let .game(.gameStarted(_, _, size), _) = event { formatter.size = size }
        for line in formatter.lines(for: event) { output.write(line) }
        if let next = rematch.after(event) {
            for line in formatter.lines(for: next) { output.write(line) }
        }
    }

    /// Seconds between games, for the `rematch` event (the daemon's rematch delay).
    public var rematchSeconds: Int {
        get { rematch.seconds }
        set { rematch.seconds = newValue }
    }

    /// Stops reading input; what is left of the output gets at most a second to go.
    public func stop() {
        input?.stop()
        output.drain(within: .seconds(1))
    }
}

/// A daemon with a person at the front: wires the daemon's events to the front and the front's
/// commands to the daemon; SIGINT and SIGTERM leave cleanly (LEAVE to every peer first).
public final class NetworkPlayer {
    private let reactor: Reactor
    private let daemon: Daemon
    private let front: Front
    private var signals: SignalSource?
    private var leaving = false
    private var running = false
    /// The player left with Ctrl-C or SIGINT: the command exits 130 (128 + SIGINT).
    public private(set) var interrupted = false
    private var pending: [OutputEvent] = []
    private let field: FieldSession?

    /// `field`: the collaborative field this daemon also serves (`field` command, `f` key).
    public init(reactor: Reactor, daemon: Daemon, front: Front, field: FieldSession? = nil) {
        self.reactor = reactor
        self.daemon = daemon
        self.front = front
        self.field = field
    }

    /// Runs until the player quits or a signal arrives.
    /// Tells the player something (DNS-SD unavailable...): at once once running, else right
    /// after the ready line.
    public func notify(_ text: String) {
        if running { front.show(.notice(text)) } else { pending.append(.notice(text)) }
    }

    public func run(connectTo peers: [[SocketAddress]], notices: [OutputEvent] = []) throws(NetError) {
        defer { front.stop() } // gives the terminal back on every way out, errors included
        SignalSource.ignoreBrokenPipe()
        signals = try SignalSource(reactor: reactor, signals: [SIGINT, SIGTERM, SIGHUP]) { [unowned self] signal in
            if signal == SIGINT { interrupted = true }
            quit()
        }
        daemon.onEvent = { [unowned self] event in
            front.show(OutputEvent(event))
            if case let .invited(by, _) = event, let field, field.isOpen {
                field.front.show(.notice("\(by.name) invites you to tic-tac-toe: the lobby has it"))
            }
        }
        front.onCommand = { [unowned self] command in handle(command) }
        if let field {
            daemon.onPresence = { event in field.presence(event) }
            field.onLobby = { [unowned self] in closeField() }
            field.onQuit = { [unowned self] in quit() }
            (front as? FullScreenFront)?.offersField = true
        }
        let config = daemon.core.config
        let delay = config.rematchDelay.components
        (front as? PlainFront)?.rematchSeconds = Int(delay.seconds) + (delay.attoseconds > 0 ? 1 : 0)
        front.show(.ready(name: config.name.value, id: config.instanceID, port: daemon.port))
        for notice in notices + pending { front.show(notice) }
        pending = []
        running = true
        daemon.discovery?.onNetworkChange = { [unowned self] available, interfaces in
            front.show(.notice(available ? "Network: looking for players on \(interfaces.joined(separator: ", "))"
                                         : "No network: only players on this host can be found"))
        }
        try front.start(reactor: reactor)
        for addresses in peers { daemon.keepConnecting(to: addresses) }
        try reactor.run()
    }

    private func handle(_ command: Command) {
        do throws(CommandError) {
            switch command {
            case .quit: return quit()
            case .interrupt:
                interrupted = true
                return quit()
            case .help: front.show(.help(Command.helpText))
            case .peers: front.show(.peers(daemon.core.peers))
            case let .invite(who): try daemon.command(.invite(who))
            case .accept: try daemon.command(.accept)
            case .decline: try daemon.command(.decline)
            case .cancel:
                do throws(CommandError) { try daemon.command(.cancel) } catch .nothingToCancel where daemon.core.currentGame != nil {
                    // In a match "no invitation" reads as if the game were not there: say what
                    // cancel is for and what ends a game.
                    front.show(.error(code: CommandError.nothingToCancel.code, message: Command.cancelInGameText))
                }
            case .lobby: try daemon.command(.leaveMatch)
            case let .connect(text):
                do {
                    daemon.keepConnecting(to: try SocketAddress.resolve(text))
                    front.show(.notice("Connecting to \(text)"))
                } catch {
                    front.show(.error(code: "bad-address", message: error.description))
                }
            case .field: openField()
            case let .move(n): try daemon.command(.move(n - 1))
            case let .moveAt(ref):
                guard let size = daemon.core.currentGame?.size else { throw CommandError.notInGame }
                switch CellName.resolve(ref, on: size) {
                case let .success(n): try daemon.command(.move(n - 1))
                case let .failure(e): front.show(.error(code: "illegal-move", message: e.description))
                }
            case .new: try daemon.command(.new)
            case .resign: try daemon.command(.resign)
            }
        } catch {
            front.show(.error(code: error.code, message: error.description))
        }
    }

    /// The lobby's front gives way to the field's; plain lines become field commands until
    /// `lobby` (README "The collaborative field").
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
        do throws(NetError) { try front.start(reactor: reactor) } catch { quit() }
    }

    /// LEAVE to every peer, a moment to flush, then stop.
    private func quit() {
        guard !leaving else { return }
        leaving = true
        field?.leave()
        front.stop()
        daemon.leave(within: .seconds(1)) { [reactor] in reactor.stop() }
    }
}
