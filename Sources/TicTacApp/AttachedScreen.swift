#if canImport(Glibc)
import Glibc
#endif
import TicTacAPI
import TicTacJSON
import TicTacNet
import TicTacTTY
import TicTacTerminal

/// `tictac play` in a terminal while a `tictac daemon` keeps its state directory: the full screen
/// as a client of the control socket (docs/control.md). The daemon's JSON lines become events
/// again (JSONEventReader); the screen's commands go back as plain-mode lines. Leaving detaches:
/// the daemon, and a game in play, go on.
final class AttachedScreen {
    private let reactor: Reactor
    private let connection: ControlCall.Connection
    private let front: FullScreenFront
    private let lifecycle: RunnerLifecycle
    private var reader = JSONEventReader()
    private var lines: StdinLines?
    /// A second descriptor of the socket for writing: epoll keeps one interest per descriptor.
    private let outFD: Int32
    private let output: LineWriter

    init(reactor: Reactor, connection: ControlCall.Connection, front: FullScreenFront) throws(NetError) {
        self.reactor = reactor
        self.connection = connection
        self.front = front
        front.attached = true
        lifecycle = RunnerLifecycle(reactor: reactor)
        outFD = fcntl(connection.fd, F_DUPFD_CLOEXEC, 0)
        guard outFD >= 0 else { throw .last("dup") }
        output = LineWriter(fd: outFD, gapLine: { _ in "sync" }) // lines a daemon did not take are commands lost: sync says so
    }

    deinit {
        output.drain(within: .zero)
        close(outFD)
    }

    var exitStatus: Int32 { lifecycle.exitStatus }

    func run() throws(NetError) {
        defer { front.stop() }
        try lifecycle.start { [unowned self] _, done in
            front.stop()
            lines?.stop()
            done()
        }
        lines = try StdinLines(reactor: reactor, fd: connection.fd, onItem: { [unowned self] item in
            if case let .line(text) = item { take(text) }
        }, onEnd: { [unowned self] in
            front.daemonStopped()
            lifecycle.quit()
        })
        front.onCommand = { [unowned self] command in
            switch command {
            case .quit: lifecycle.quit()
            case .interrupt: lifecycle.interrupt()
            case .field: front.show(.error(code: "bad-command", message: "the field is not served through tictac daemon: "
                                           + "tictac spheres opens it"))
            default: output.write(command.line)
            }
        }
        output.attach(to: reactor)
        output.write("attach json")
        try front.start(reactor: reactor)
        try lifecycle.run()
    }

    private func take(_ text: String) {
        guard let value = JSON.parse(text) else { return }
        // Where this front stands, said once as a notice (docs/control.md, the seat).
        switch value["event"]?.string {
        case "attached":
            if value["seat"]?.string == "held" { front.show(.notice("Another front holds the seat: this one follows")) }
        case "seat":
            if value["yours"]?.bool == true { front.show(.notice("You hold the seat now: your keys act")) }
        default:
            if let event = reader.event(from: value) { front.show(event) }
        }
    }
}
