#if canImport(Glibc)
import Glibc
#endif
import TicTacAPI
import TicTacJSON
import TicTacNet
import TicTacTTY
import TicTacTerminal

/// One connection to the control socket (docs/control.md): greeted, then attached with the
/// style it asked for, it is a plain-mode front whose lines come from the socket. A client that
/// sends nothing is cheap; one that does not read loses its oldest lines (LineWriter), never
/// the daemon's time.
final class ControlClient {
    var onAttach: () -> Void = {}
    var onCommand: (Command) -> Void = { _ in }
    var onSeat: () -> Void = {}
    var onStop: () -> Void = {}
    /// The connection is gone (the client left, or was closed).
    var onEnd: () -> Void = {}
    /// Attached as a front: it may hold the seat (`follow` clients never do).
    private(set) var isFront = true
    private(set) var isAttached = false
    private let fd: Int32
    /// A second descriptor of the socket for writing: epoll keeps one interest per descriptor.
    private let outFD: Int32
    private let reactor: Reactor
    private let rematchSeconds: Int
    private var input: StdinLines?
    private var front: PlainFront?
    private var json = true
    /// Errors shown before the last `sync` (its answer counts those since).
    private var errorsBefore = 0
    private var closed = false

    init(reactor: Reactor, fd: Int32, rematchSeconds: Int) throws(NetError) {
        self.reactor = reactor
        self.fd = fd
        self.rematchSeconds = rematchSeconds
        outFD = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard outFD >= 0 else { throw .last("dup") }
        do throws(NetError) {
            input = try StdinLines(reactor: reactor, fd: fd, onItem: { [unowned self] in take($0) },
                                   onEnd: { [unowned self] in close(drain: false) })
        } catch {
            Glibc.close(outFD)
            throw error
        }
    }

    /// The first line, before the client says anything: which protocol this is.
    func greet(version: Int) {
        sayBeforeAttach(JSON.object([("event", .string("control")), ("version", .int(version)), ("program", .string("tictac"))]))
    }

    func show(_ event: DaemonEvent) {
        front?.show(event)
    }

    /// Who holds the seat, as an attached client is told.
    enum SeatHolder: String { case yours, held, free }

    func sayAttached(seat: SeatHolder) {
        let text = switch seat {
        case .yours: "Attached: you hold the seat (your commands act)"
        case .held: "Attached: another front holds the seat; this one follows"
        case .free: "Attached: no front holds the seat (the first command that acts takes it)"
        }
        say("attached", [("seat", .string(seat.rawValue))], text: text)
    }

    func saySeat(_ yours: Bool) {
        say("seat", [("yours", .bool(yours))], text: yours ? "You hold the seat now: your commands act" : "The seat is another front's")
    }

    /// Closes the connection; `drain`: what was queued gets a moment to go.
    func close(drain: Bool) {
        guard !closed else { return }
        closed = true
        input?.stop()
        input = nil
        front?.stop(drainWithin: drain ? .milliseconds(200) : .zero)
        front = nil
        Glibc.close(outFD)
        Glibc.close(fd)
        onEnd()
    }

    // MARK: - Lines in

    private func take(_ item: LineReader.Item) {
        guard case let .line(text) = item else {
            return refuse("bad-command", "line too long (at most \(Command.maxLineBytes) bytes)")
        }
        let words = text.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
        guard let first = words.first else { return }
        switch (first, isAttached) {
        case ("stop", _): onStop()
        case ("attach", false): attach(Array(words.dropFirst()))
        case ("attach", true): refuse("bad-command", "already attached")
        case (_, false): refuse("attach-first", "say attach [json|text] [follow] first (docs/control.md)")
        case ("detach", true): close(drain: true)
        case ("seat", true): onSeat()
        case ("sync", true):
            let errors = (front?.errorsShown ?? 0) - errorsBefore
            errorsBefore += errors
            say("sync", [("errors", .int(errors))], text: "sync: \(errors) error(s)")
        default: front?.take(item)
        }
    }

    private func attach(_ options: [String]) {
        for option in options {
            switch option {
            case "json": json = true
            case "text": json = false
            case "follow": isFront = false
            default: return refuse("bad-command", "attach takes json, text and follow, not '\(option.prefix(32))'")
            }
        }
        let front = PlainFront(json: json, inputFD: nil, outputFD: outFD)
        front.rematchSeconds = rematchSeconds
        front.onCommand = { [unowned self] in onCommand($0) }
        do throws(NetError) { try front.start(reactor: reactor) } catch { return close(drain: false) }
        self.front = front
        isAttached = true
        onAttach()
    }

    // MARK: - Lines out

    /// A line of the control protocol itself, in the client's style.
    private func say(_ event: String, _ fields: [(String, JSON)], text: String) {
        guard let front else { return }
        front.output.write(json ? JSON.object([("event", .string(event))] + fields).serialized : text)
    }

    private func refuse(_ code: String, _ message: String) {
        if isAttached { return show(.error(code: code, message: message)) }
        sayBeforeAttach(JSON.object([("event", .string("error")), ("code", .string(code)), ("message", .string(message))]))
    }

    /// Before attach there is no queue: a line the socket does not take at once is dropped.
    private func sayBeforeAttach(_ line: JSON) {
        var bytes = line.utf8
        bytes.append(10)
        _ = bytes.withUnsafeBytes { send(outFD, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    }
}
