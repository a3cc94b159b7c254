import TicTacDaemon
import TicTacDaemonCore
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacField
import TicTacFieldCore
import TicTacNet
import TicTacTTY
import TicTacTerminal
import TicTacWire

/// The collaborative field inside `tictac play`: one daemon serves both games. The field's socket
/// lives as long as the daemon; `open` announces the field (capability and port, Protocol.md §7
/// and §11) and joins it, `close` says FIELD_LEAVE and stops announcing it, so the others stop
/// sending to us while we are in the tic-tac-toe lobby.
public final class FieldSession {
    public let field: FieldShell
    /// Shows the field while it is open (and keeps its picture up to date while closed).
    public let front: FieldFront
    public private(set) var isOpen = false
    /// The player asked to go back to the lobby (`q` on the full screen, `lobby` in plain mode).
    public var onLobby: () -> Void = {}
    /// The player asked to quit tictac (`quit` in plain mode; true: Ctrl-C on the full screen).
    public var onQuit: (_ interrupted: Bool) -> Void = { _ in }

    /// Publishes and browses the field by DNS-SD (`_spherenet._udp`, Protocol.md §11) while it
    /// is open; nil without DNS-SD.
    public var dnssd: FieldDNSSD?
    /// Our colour was picked at random: it gives way to a sphere that shows it (ColorYield).
    public var colors = ColorYield(chosen: false)

    private let reactor: Reactor
    private let daemon: Daemon

    public init(reactor: Reactor, daemon: Daemon, field: FieldShell, front: FieldFront) {
        self.reactor = reactor
        self.daemon = daemon
        self.field = field
        self.front = front
        field.onEvent = { [unowned self] event in self.field.show(event, on: self.front, colors: colors) }
        front.onCommand = { [unowned self] command in self.command(command) }
    }

    /// Feeds the presence table's changes to the field (call from `Daemon.onPresence`), so the
    /// participants are current whenever the field opens.
    public func presence(_ event: DiscoveryEvent) { field.presence(event) }

    /// Announces the field, joins it and gives the front the terminal (or the output).
    public func open() throws(NetError) {
        guard !isOpen else { return }
        isOpen = true
        announce(true)
        front.show(.ready(field.core.local, port: field.port))
        try front.start(reactor: reactor)
        field.start(peers: daemon.presencePeers)
        dnssd?.start(name: daemon.config.name.value, id: daemon.config.instanceID, fieldPort: field.port)
    }

    /// FIELD_LEAVE, no more field in our announcements, the counters, and the front stops.
    public func close() {
        guard isOpen else { return }
        isOpen = false
        field.stopSending()
        dnssd?.stop()
        announce(false)
        front.show(.stats(field.core.counters))
        front.stop()
    }

    /// At exit: FIELD_LEAVE if open, and the socket closes.
    public func leave() {
        close()
        field.leave()
    }

    /// Carries out a field command (the front's, or a plain-mode line of tictac play).
    public func command(_ command: FieldCommand) {
        guard !field.carryOut(command, on: front, colors: &colors) else { return }
        switch command {
        case .lobby: onLobby()
        case .quit: onQuit(false)
        case .interrupt: onQuit(true)
        case .help: front.show(.help(FieldCommand.helpText + "; lobby goes back to tic-tac-toe"))
        case .stats: front.show(.stats(field.core.counters))
        case .move, .goto, .color: break // carried out above
        }
    }

    /// Adds or removes the field's capability and port in what discovery announces; the change
    /// goes out at once (Protocol.md §7: a changed state is announced without waiting).
    private func announce(_ on: Bool) {
        guard let presence = daemon.presence else { return }
        var local = presence.local
        if on {
            local.capabilities.insert(.field)
            local.fieldPort = field.port
        } else {
            local.capabilities.remove(.field)
            local.fieldPort = 0
        }
        presence.update(local)
    }
}
