#if canImport(Glibc)
import Glibc
#endif
import TicTacDaemonCore
import TicTacNet

/// Where the bot's moves are made off the loop: the built-in bot's searches (BotWorker) and an
/// external engine's processes (EngineHost).
extension Daemon {
    /// Makes the bot's moves on the boards `DaemonConfig.engine` lists come from `command`, a
    /// Gomocup engine run by /bin/sh (one process per match, EngineHost).
    public func useEngine(command: String, limits: EngineLimits, maxRestarts: Int) {
        engineHost = EngineHost(command: command, limits: limits, maxRestarts: maxRestarts, reactor: reactor, answer: { [weak self] answer in
            // Never inside `apply` (the host may answer while carrying out a request): after the batch.
            self?.reactor.afterBatch { [weak self] in
                guard let self else { return }
                core.handle(.engineAnswered(answer), now: reactor.now)
                apply()
            }
        }, log: { [weak self] line in self?.onLog(line) }, note: { [weak self] line in self?.onEngineNote(line) })
    }

    /// Engine processes running now (tests).
    public var engineProcesses: Int { engineHost?.running ?? 0 }

    /// Hands a search to the bot's thread; without one (it could not be made) it runs here.
    func think(_ job: BotSearchJob) {
        if botWorker == nil {
            do {
                botWorker = try BotWorker(reactor: reactor) { [weak self] result in
                    guard let self else { return }
                    core.handle(.botMoveReady(result), now: reactor.now)
                    apply()
                }
            } catch {
                onLog("no thread for the bot's searches (\(error)): searching on the loop")
            }
        }
        guard let botWorker else {
            let result = job.run()
            return reactor.afterBatch { [weak self] in
                guard let self else { return }
                core.handle(.botMoveReady(result), now: reactor.now)
                apply()
            }
        }
        botWorker.submit(job)
    }

}
