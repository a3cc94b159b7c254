#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import TicTacNet
import TicTacDaemonCore

/// Runs the bot's searches (DaemonCore's `think` actions) on one thread of their own, so the
/// reactor keeps reading, answering PINGs and making 3 x 3 moves while a search runs; the
/// searches together use at most one core, at a lower priority (nice 10). Each answer comes back
/// on the reactor's thread through a LoopInbox.
final class BotWorker {
    private let inbox: LoopInbox<BotSearchResult>
    private let queue = DispatchQueue(label: "tictac.bot-search") // serial: one search at a time

    /// - Parameter onResult: each finished search, on the reactor's thread.
    init(reactor: Reactor, onResult: @escaping (BotSearchResult) -> Void) throws(NetError) {
        inbox = try LoopInbox(reactor: reactor, deliver: onResult)
    }

    /// Queues `job`; its result reaches `onResult` on the reactor's thread.
    func submit(_ job: BotSearchJob) {
        let sender = inbox.sender
        queue.async {
            // Below the loop's priority: on a busy machine the scheduler gives the reactor's
            // thread (PINGs, 3 x 3 moves) the CPU first (on Linux the nice value is per thread).
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) // 0: the calling thread
            sender.post(job.run())
        }
    }
}
