#if canImport(Glibc)
import Glibc
#endif
import TicTacNet
import TicTacTerminal

/// A watch view on the terminal (RawTerminal: raw mode, the alternate screen, keys, resize).
public final class WatchFront<View: WatchView> {
    public var screen: View
    /// `q`, Ctrl-C (interrupted: true) or the end of input.
    public var onQuit: (_ interrupted: Bool) -> Void = { _ in }
    private let terminal = RawTerminal()
    private var reactor: Reactor?
    private var pending = false

    public init(_ view: View) { screen = view }

    /// Box-drawing characters and the middle dot when the locale is UTF-8.
    public static var unicode: Bool { RawTerminal.localeIsUTF8() }

    deinit { stop() }

    public func start(reactor: Reactor) throws(NetError) {
        terminal.onKeys = { [unowned self] keys in
            for key in keys {
                if key == .interrupt { return onQuit(true) }
                if key == .char("q") || key == .char("Q") { return onQuit(false) }
            }
        }
        terminal.onResize = { [unowned self] in draw() }
        terminal.onEnd = { [unowned self] in onQuit(false) }
        try terminal.start(reactor: reactor)
        self.reactor = reactor
        draw()
    }

    public func stop() {
        terminal.stop()
        reactor = nil
    }

    /// Redraws once per turn of the loop, however many updates came.
    public func update(_ change: (inout View) -> Void) {
        change(&screen)
        guard !pending, let reactor else { return }
        pending = true
        reactor.schedule(after: .zero) { [weak self] in
            self?.pending = false
            self?.draw()
        }
    }

    private func draw() {
        guard terminal.started else { return }
        let (width, height) = terminal.size()
        var out = ""
        for (row, line) in screen.lines(width: width, height: height).enumerated() {
            out += "\u{1B}[\(row + 1);1H\u{1B}[0m" + line + "\u{1B}[0m\u{1B}[K"
        }
        terminal.draw(out + "\u{1B}[J", whole: true)
    }
}
