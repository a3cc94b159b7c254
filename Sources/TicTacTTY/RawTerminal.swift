#if canImport(Glibc)
import Glibc
#endif
import TicTacTerminal
import TicTacNet

/// The terminal as the full-screen fronts use it (tic-tac-toe's and the field's): raw mode with
/// termios, the alternate screen, a hidden cursor, keys from stdin and SIGWINCH on the reactor.
/// `stop()` puts everything back. Output goes through a ScreenWriter: a terminal nobody reads
/// never blocks the loop. Hand-written VT100/ANSI sequences, no curses.
final class RawTerminal {
    /// Keys as they complete (a lone ESC after 50 ms without a follow-up).
    var onKeys: ([Key]) -> Void = { _ in }
    /// The window changed size.
    var onResize: () -> Void = {}
    /// End of input, or the terminal went away.
    var onEnd: () -> Void = {}

    private(set) var started = false
    private var parser = KeyParser()
    private var reactor: Reactor?
    private var original: termios?
    private var resize: SignalSource?
    private var escapeTimer: Reactor.TimerID?
    private let input: Int32
    private let output: ScreenWriter
    private let outputFD: Int32
    /// How long the way out (and Ctrl-Z) waits for a terminal that does not take its output.
    private static let drainLimit: Duration = .seconds(1)

    /// `input` and `output`: the terminal's descriptors (standard input and output).
    init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        outputFD = output
        self.output = ScreenWriter(fd: output)
    }

    deinit { stop() }

    /// Raw mode, the alternate screen, a hidden cursor; reads keys from stdin and reports
    /// SIGWINCH. If a step fails, whatever was done is undone before the error is thrown.
    func start(reactor: Reactor) throws(NetError) {
        guard !started else { return }
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { throw .last("tcgetattr") }
        guard enterRawMode(from: saved) else { throw .last("tcsetattr") }
        original = saved
        started = true
        self.reactor = reactor
        output.attach(to: reactor)
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
        do {
            try reactor.register(input, .read) { [weak self] _ in self?.readKeys() }
            // SIGCONT: back from a stop we did not ask for (kill -STOP): redraw everything.
            resize = try SignalSource(reactor: reactor, signals: [SIGWINCH, SIGCONT]) { [weak self] _ in self?.onResize() }
        } catch {
            stop()
            throw error
        }
    }

    /// Gives the terminal back as it was: termios, cursor, main screen, colours. Idempotent.
    func stop() {
        guard started else { return }
        started = false
        if let reactor {
            reactor.unregister(input)
            if let escapeTimer { reactor.cancel(escapeTimer) }
        }
        escapeTimer = nil
        resize = nil
        reactor = nil
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        output.drain(within: Self.drainLimit)
        output.detach()
        if let saved = original { setMode(saved) }
        original = nil
    }

    /// Raw mode from the terminal's own settings `saved`; false if the terminal refused it.
    private func enterRawMode(from saved: termios) -> Bool {
        var raw = saved
        cfmakeraw(&raw)
        raw.c_oflag |= tcflag_t(OPOST | ONLCR) // keep "\n" -> "\r\n" for anything else that prints
        return setMode(raw)
    }

    /// Sets `mode` at once, dropping unread input: TCSAFLUSH would also wait for the output
    /// to drain, for ever on a terminal nobody reads.
    @discardableResult
    private func setMode(_ mode: termios) -> Bool {
        var mode = mode
        tcflush(input, TCIFLUSH)
        return tcsetattr(input, TCSANOW, &mode) == 0
    }

    /// Ctrl-Z: gives the terminal back as it was, stops the job as the shell expects (SIGTSTP to
    /// our process group), and once continued (`fg`) takes raw mode and the alternate screen
    /// again and has everything redrawn. Raw mode turned ISIG off, so this is ours to do.
    func suspend() {
        guard started, let saved = original else { return }
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        output.drain(within: Self.drainLimit)
        setMode(saved)
        kill(0, SIGTSTP) // returns once the job is continued
        guard started else { return }
        _ = enterRawMode(from: saved)
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
        onResize()
    }

    /// A mode change (alternate screen, cursor, clear): it always goes, in order.
    func write(_ text: String) { output.send(text) }

    /// Screen content; `whole`: it draws the whole screen (a frozen terminal then gets only
    /// the newest screen once it reads again).
    func draw(_ text: String, whole: Bool) { output.draw(text, whole: whole) }

    /// Output waits for the terminal: the next drawing had better be whole.
    var backedUp: Bool { output.backedUp }

    private func readKeys() {
        guard started else { return }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
        if n < 0, errno == EINTR || errno == EAGAIN { return }
        guard n > 0 else {
            // End of input or a terminal that went away: leave like `q`.
            reactor?.unregister(input)
            onEnd()
            return
        }
        deliver(parser.feed(buffer[0..<n]))
        if let escapeTimer { reactor?.cancel(escapeTimer) }
        escapeTimer = nil
        if parser.hasPending {
            // A lone ESC, or a sequence cut short: if nothing follows soon, take it as it is.
            escapeTimer = reactor?.schedule(after: .milliseconds(50)) { [weak self] in
                guard let self else { return }
                escapeTimer = nil
                guard started else { return }
                deliver(parser.flush())
            }
        }
    }

    /// Hands keys on; Ctrl-Z suspends here, for every front alike.
    private func deliver(_ keys: [Key]) {
        var rest: [Key] = []
        for key in keys {
            guard key == .suspend else { rest.append(key); continue }
            if !rest.isEmpty { onKeys(rest) }
            rest = []
            suspend()
        }
        if !rest.isEmpty { onKeys(rest) }
    }

    // MARK: - Environment

    /// Columns and rows of the terminal (80 x 24 if it cannot be read).
    func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(outputFD, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// True when LC_ALL, LC_CTYPE or LANG (the first one set) names UTF-8.
    static func localeIsUTF8() -> Bool {
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { continue }
            let v = value.lowercased()
            return v.contains("utf-8") || v.contains("utf8")
        }
        return false
    }
}
