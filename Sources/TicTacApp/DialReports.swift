import TicTacAPI
import TicTacDaemon
import TicTacDaemonCore
import TicTacNet
import TicTacTerminal
import TicTacWire

/// Says what came of each peer the player named (`connect HOST:PORT`, the lobby's `a`,
/// `--connect`): after "Connecting to X", always one of "Connected to X: ben", "Cannot connect
/// to X: why; trying again in the background" (the daemon's connect-failed, and the retry that
/// follows may connect later), or "X answered but no tictac player spoke there: gave up".
final class DialReports {
    private let reactor: Reactor
    private let daemon: Daemon
    private let show: (DaemonEvent) -> Void
    /// Connections made whose handshake has not ended, with the text the player typed.
    private var pending: [(link: LinkID, text: String)] = []
    private var timer: Reactor.TimerID?

    init(reactor: Reactor, daemon: Daemon, show: @escaping (DaemonEvent) -> Void) {
        self.reactor = reactor
        self.daemon = daemon
        self.show = show
    }

    /// Dials `addresses` until one answers (Daemon.keepConnecting), saying so first.
    func dial(_ addresses: [SocketAddress], as text: String) {
        show(.notice("Connecting to \(text)"))
        daemon.keepConnecting(to: addresses) { [weak self] link, _ in
            guard let self else { return }
            pending.append((link, text))
            check()
        }
    }

    /// Looks at each connection made: says how its handshake ended, once it has. Called after
    /// the daemon's events and once a second while one is pending (a link to something that is
    /// not a tictac player closes with no event).
    func check() {
        pending.removeAll { link, text in
            switch daemon.linkProgress(link) {
            case .handshaking:
                return false
            case let .proven(peer) where !peer.capabilities.contains(.tictactoe):
                // A `tictac spheres` daemon: connected, but the lobby does not list it.
                show(.error(code: "connect-failed", message: "\(text) is \(peer.name), which offers no tic-tac-toe (the field only): not listed"))
            case let .proven(peer):
                show(.notice("Connected to \(text): \(peer.name)"))
            case .closed:
                show(.error(code: "connect-failed", message: "\(text) answered but no tictac player spoke there: gave up"))
            }
            return true
        }
        if pending.isEmpty, let timer {
            reactor.cancel(timer)
            self.timer = nil
        } else if !pending.isEmpty, timer == nil {
            timer = reactor.schedule(after: .seconds(1)) { [weak self] in
                self?.timer = nil
                self?.check()
            }
        }
    }

    func stop() {
        if let timer { reactor.cancel(timer) }
        timer = nil
        pending = []
    }
}
