#if canImport(Glibc)
import Glibc
#endif
import TicTacEngine
import TicTacNet

/// Runs a `LocalMatch` on the reactor: stdin lines in, event lines out, rematch timers.
public final class LocalGameRunner {
    private let reactor: Reactor
    private var match: LocalMatch
    private let formatter: OutputFormatter
    private var reader = LineReader()
    private var timer: Reactor.TimerID?
    private let prompt: Bool

    /// - Parameter prompt: print a short prompt on "your turn" (interactive terminals only).
    public init(match: LocalMatch, style: OutputFormatter.Style, prompt: Bool) throws(NetError) {
        reactor = try Reactor()
        self.match = match
        self.formatter = OutputFormatter(style: style)
        self.prompt = prompt
    }

    /// Plays until `quit` or end of input.
    public func run() throws(NetError) {
        emit(match.start(now: reactor.now))
        do {
            try reactor.register(STDIN_FILENO, .read) { [unowned self] _ in readInput() }
        } catch where error.errno == EPERM {
            // A regular file or /dev/null cannot be polled; it is always readable, so read it
            // on each turn of the loop instead.
            pollFileInput()
        }
        try reactor.run()
    }

    private func pollFileInput() {
        reactor.schedule(after: .zero) { [unowned self] in
            if readInput() { pollFileInput() }
        }
    }

    /// Reads once; returns false at end of input or on quit.
    @discardableResult
    private func readInput() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
        if n < 0, errno == EINTR || errno == EAGAIN { return true }
        let items = n > 0 ? reader.feed(buffer[0..<n]) : reader.finish()
        for item in items {
            switch item {
            case .tooLong:
                emit([.error(code: "bad-command", message: "line too long (at most \(Command.maxLineBytes) bytes)")])
            case let .line(text):
                guard !text.allSatisfy(\.isWhitespace) else { continue }
                do {
                    let command = try Command.parse(text)
                    if command == .quit { return quit() }
                    emit(match.command(command, now: reactor.now))
                } catch {
                    emit([.error(code: "bad-command", message: error.description)])
                }
            }
        }
        return n > 0 ? true : quit()
    }

    private func quit() -> Bool {
        reactor.unregister(STDIN_FILENO)
        reactor.stop()
        return false
    }

    private func emit(_ events: [OutputEvent]) {
        for event in events {
            for line in formatter.lines(for: event) { print(line) }
            if prompt, case .game(.yourTurn, _) = event {
                print("Your move (1-\(match.human.size.cellCount)), n = new game, r = resign, q = quit")
            }
        }
        fflush(nil) // all streams: events must reach a pipe at once
        rearmTimer()
    }

    private func rearmTimer() {
        if let timer { reactor.cancel(timer) }
        timer = nil
        guard let deadline = match.nextDeadline else { return }
        timer = reactor.schedule(at: deadline) { [unowned self] in
            timer = nil
            emit(match.timeout(now: reactor.now))
        }
    }
}
