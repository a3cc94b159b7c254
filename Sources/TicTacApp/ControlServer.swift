#if canImport(Glibc)
import Glibc
#endif
import TicTacAPI
import TicTacNet
import TicTacTTY
import TicTacTerminal

/// The fronts of `tictac daemon`, over its control socket (docs/control.md). To the player's
/// runner it is one front; to each client it is a plain-mode front of its own. Every attached
/// client sees the daemon's events; one holds the seat (its commands act), the others follow,
/// and when the seat's client leaves the seat passes to the front that attached first.
final class ControlServer: Front {
    /// The control protocol's version (docs/control.md), said in each greeting.
    static let version = 1
    /// Clients at most at once: one more is told so and closed (each holds descriptors).
    static let maxClients = 32

    var onCommand: ((Command) -> Void)?
    /// `stop` from a client: the daemon leaves the LAN and ends.
    var onStop: () -> Void = {}
    /// Where our player is, for a client that attaches (Daemon.snapshot).
    var snapshot: () -> [DaemonEvent] = { [] }
    /// Seconds between games, for the `rematch` event (the daemon's rematch delay).
    var rematchSeconds = 3
    /// Nobody holds the seat after a game ended (or its front left after one): the next game
    /// must not start on a clock nobody watches.
    var onUnattended: () -> Void = {}
    /// An invitation came while no front holds the seat (a desktop notification says it).
    var onUnansweredInvitation: (PeerInfo) -> Void = { _ in }
    /// Said to the operator's log (a refused uid, a client that came or went).
    var onLog: (String) -> Void = { _ in }
    private let listener: UnixListener
    private let reactor: Reactor
    private var clients: [ControlClient] = []
    private var seat: ControlClient?
    private var ready: DaemonEvent?
    /// The client whose command is being carried out: replies (errors, help, the lobby) are its.
    private var replyTo: ControlClient?
    private var stopped = false

    init(reactor: Reactor, path: String) throws(NetError) {
        self.reactor = reactor
        var accept: (Int32) -> Void = { close($0) }
        listener = try UnixListener(reactor: reactor, path: path) { accept($0) }
        accept = { [unowned self] fd in admit(fd) }
        listener.onRefused = { [unowned self] uid in
            onLog("control socket: refused a connection from uid \(uid.map { String($0) } ?? "unknown")")
        }
    }

    var path: String { listener.path }
    /// Clients connected now, attached or not.
    var clientCount: Int { clients.count }

    /// The listener serves from its creation; nothing to start.
    func start(reactor: Reactor) throws(NetError) {}

    func show(_ event: DaemonEvent) {
        if case .ready = event { ready = event }
        if let replyTo, event.isReply { return replyTo.show(event) }
        for client in clients where client.isAttached { client.show(event) }
        if case .game(.gameOver, _) = event, seat == nil { onUnattended() }
        if case let .invited(by, _) = event, seat == nil { onUnansweredInvitation(by) }
    }

    /// The daemon is leaving: no more clients. None is waited for (a client that stopped
    /// reading must not hold up the departure): what its socket did not take is dropped.
    func stop() {
        guard !stopped else { return }
        stopped = true
        listener.close()
        for client in clients { client.close(drain: false) }
        clients = []
        seat = nil
    }

    // MARK: - Clients

    private func admit(_ fd: Int32) {
        guard !stopped else { _ = close(fd); return }
        guard clients.count < Self.maxClients else {
            let line = Array(#"{"event":"error","code":"busy","message":"too many clients of this daemon"}"#.utf8) + [10]
            _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            _ = close(fd)
            return
        }
        let client: ControlClient
        do throws(NetError) {
            client = try ControlClient(reactor: reactor, fd: fd, rematchSeconds: rematchSeconds)
        } catch {
            onLog("control socket: cannot serve a client: \(error)")
            _ = close(fd)
            return
        }
        client.onAttach = { [unowned self, unowned client] in attached(client) }
        client.onCommand = { [unowned self, unowned client] command in dispatch(command, from: client) }
        client.onSeat = { [unowned self, unowned client] in takeSeat(client, asked: true) }
        client.onStop = { [unowned self] in onStop() }
        client.onEnd = { [unowned self, unowned client] in leave(client) }
        clients.append(client)
        client.greet(version: Self.version)
    }

    private func attached(_ client: ControlClient) {
        if let ready { client.show(ready) }
        for event in snapshot() { client.show(event) }
        if client.isFront, seat == nil { seat = client }
        client.sayAttached(seat: seat === client ? .yours : seat == nil ? .free : .held)
    }

    /// A command from a client: `quit` detaches it; what acts needs the seat (free: it takes it).
    private func dispatch(_ command: Command, from client: ControlClient) {
        if command == .quit || command == .interrupt { return client.close(drain: true) }
        if command.acts, seat !== client {
            guard takeSeat(client, asked: false) else { return }
        }
        replyTo = client
        defer { replyTo = nil }
        onCommand?(command)
    }

    /// Gives the seat to `client` when it is free; else says who holds it. `asked`: the `seat`
    /// line, which is answered either way.
    @discardableResult
    private func takeSeat(_ client: ControlClient, asked: Bool) -> Bool {
        if seat === client {
            if asked { client.saySeat(true) }
            return true
        }
        guard seat == nil else {
            client.show(.error(code: "seat-held", message: "another front holds the seat (it moves and answers); this one follows"))
            return false
        }
        seat = client
        client.saySeat(true)
        return true
    }

    private func leave(_ client: ControlClient) {
        clients.removeAll { $0 === client }
        guard seat === client, !stopped else { return }
        seat = clients.first { $0.isAttached && $0.isFront }
        seat?.saySeat(true)
        if seat == nil { onUnattended() }
    }
}

extension DaemonEvent {
    /// What answers the command being carried out, for its client only.
    var isReply: Bool {
        switch self {
        case .error, .help, .peers, .notice: true
        default: false
        }
    }
}

extension Command {
    /// Whether the command acts for our player (and so needs the seat), rather than asks.
    var acts: Bool {
        switch self {
        case .help, .peers, .quit, .interrupt: false
        default: true
        }
    }
}
