import TicTacDaemonCore
import TicTacNet
import TicTacTime

/// The watchers' frames and closes (`DaemonCore.pollLateActions`), taken once every frame of a
/// turn to a player is out and served from the next turn of the loop on, `linksPerTurn` links a
/// turn, each link's frames in one send(): input that comes meanwhile (a player's next move) is
/// read first, so a watcher never delays a move (Protocol.md §14).
final class LateFrames {
    /// Watchers' links served per turn of the loop.
    static let linksPerTurn = 4

    private let reactor: Reactor
    private let core: DaemonCore // the core holds nothing of the shell: no cycle
    /// Closes a link as the daemon does (`Daemon.close`).
    private let close: (LinkID, Bool) -> Void
    /// A link's connection while the daemon has it (none once closed: its frames are dropped).
    private let connection: (LinkID) -> FrameConnection?
    /// Not yet carried out, in order from `start`.
    private var queue: [DaemonAction] = []
    private var start = 0
    /// A turn of the loop is asked for.
    private var scheduled = false
    init(reactor: Reactor, core: DaemonCore, connection: @escaping (LinkID) -> FrameConnection?,
         close: @escaping (LinkID, Bool) -> Void) {
        self.reactor = reactor
        self.core = core
        self.connection = connection
        self.close = close
    }

    /// Takes what the core has for watchers now; it leaves at the next turn.
    func take() {
        var late: [DaemonAction] = []
        core.pollLateActions(into: &late)
        guard !late.isEmpty else { return }
        queue += late
        schedule()
    }

    private func schedule() {
        guard !scheduled else { return }
        scheduled = true
        reactor.schedule(after: .zero) { [weak self] in self?.serve() }
    }

    /// Up to `linksPerTurn` links' frames; the rest at the next turn, after whatever input is
    /// ready then.
    private func serve() {
        scheduled = false
        var links = 0
        var batch: (id: LinkID, bytes: [UInt8])?
        func flush() {
            guard let b = batch else { return }
            batch = nil
            connection(b.id)?.send(b.bytes)
            core.recycle(b.bytes)
        }
        while start < queue.count {
            var action = DaemonAction.close(0, flush: false)
            swap(&action, &queue[start])
            switch consume action {
            case let .send(id, bytes):
                if batch?.id == id {
                    batch?.bytes.append(contentsOf: bytes)
                    core.recycle(bytes)
                } else {
                    flush()
                    if links == Self.linksPerTurn { // this link waits for the next turn
                        queue[start] = .send(id, bytes)
                        return schedule()
                    }
                    links += 1
                    batch = (id, bytes)
                }
            case let .close(id, afterFlush):
                flush()
                close(id, afterFlush)
            case let .boundQueue(id, maxBytes):
                flush()
                connection(id)?.maxQueuedBytes = maxBytes
            case .event, .log, .dial, .think, .engine, .record, .keys:
                break // never late (Outbox puts only frames and closes there)
            }
            start += 1
        }
        flush()
        queue.removeAll(keepingCapacity: queue.capacity <= 256)
        start = 0
    }
}
