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
    private var input: StdinLines?
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
        input = try StdinLines(reactor: reactor, onItem: { [unowned self] item in line(item) },
                               onEnd: { [unowned self] in reactor.stop() })
        try reactor.run()
    }

    private func line(_ item: LineReader.Item) {
        switch item {
        case .tooLong:
            emit([.error(code: "bad-command", message: "line too long (at most \(Command.maxLineBytes) bytes)")])
        case let .line(text):
            guard !text.allSatisfy(\.isWhitespace) else { return }
            do {
                let command = try Command.parse(text)
                if command == .quit {
                    input?.stop()
                    reactor.stop()
                    return
                }
                emit(match.command(command, now: reactor.now))
            } catch {
                emit([.error(code: "bad-command", message: error.description)])
            }
        }
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
