import Dispatch
import Synchronization
import TicTacStore

/// Folds the history's logged turns into SQLite on a queue of its own, off the reactor: the
/// turns that arrive while a fold runs are folded together in the next one (one transaction).
/// A refused fact is kept for the reactor's side to tell (`takeNotices`); after any other
/// failure it folds no more (`failure`: the log keeps the turns for the next start).
final class HistoryFolder: @unchecked Sendable { // `writer` is touched only on `queue`
    private struct Shared {
        var pending: [(turn: LoggedTurn, end: Int64)] = []
        /// A drain is queued or running: every pending turn has one coming.
        var draining = false
        /// The offset after the last turn folded.
        var folded: Int64
        var failure: StoreError?
        var notices: [String] = []
    }

    /// The log being folded (touched only on `queue`).
    private var generation: UInt64
    private let queue = DispatchQueue(label: "tictac.history-fold")
    /// How long the turns after an idle spell wait for others to share their transaction.
    private let gather: DispatchTimeInterval = .milliseconds(2)
    private let shared: Mutex<Shared>
    private var writer: HistoryWriter

    init(writer: HistoryWriter, generation: UInt64, folded: Int64) {
        self.writer = writer
        self.generation = generation
        shared = Mutex(Shared(folded: folded))
    }

    /// The offset after the last turn folded.
    var folded: Int64 { shared.withLock { $0.folded } }
    /// The failure that stopped the folding, if any.
    var failure: StoreError? { shared.withLock { $0.failure } }

    /// Queues `turn`, whose record in the log ends at `end`.
    func fold(_ turn: LoggedTurn, end: Int64) {
        let start = shared.withLock { s -> Bool in
            guard s.failure == nil else { return false }
            s.pending.append((turn, end))
            defer { s.draining = true }
            return !s.draining
        }
        if start { queue.asyncAfter(deadline: .now() + gather) { self.drain() } }
    }

    /// Returns once every turn queued before the call is folded (or the folding has stopped).
    func settle() { queue.sync { drain() } }

    /// Names the log of `next` in the store as the one to fold, all of the current one being
    /// folded (the caller checked `folded`); its turns come after this returns.
    func begin(_ next: UInt64) throws(StoreError) {
        let result: Result<Void, StoreError> = queue.sync {
            Result { () throws(StoreError) in
                try writer.store.setLogPosition(generation: next, offset: Int64(HistoryLog.headerSize))
                generation = next
                shared.withLock { $0.folded = Int64(HistoryLog.headerSize) }
            }
        }
        try result.get()
    }

    /// What to tell the player since the last call: the facts the store refused.
    func takeNotices() -> [String] {
        shared.withLock { s in
            defer { s.notices = [] }
            return s.notices
        }
    }

    private func drain() {
        while true {
            let batch = shared.withLock { s in
                defer { s.pending = [] }
                if s.pending.isEmpty { s.draining = false }
                return s.pending
            }
            guard let last = batch.last else { return }
            do throws(StoreError) {
                let refused = try writer.fold(batch, generation: generation)
                shared.withLock { s in
                    s.folded = last.end
                    s.notices += refused.map(HistoryWriter.leftOut)
                }
            } catch {
                shared.withLock { s in
                    s.failure = error
                    s.pending = []
                    s.draining = false
                }
                return
            }
        }
    }
}
