import TicTacDaemonCore
import TicTacEngine
import TicTacNet
import TicTacPbrain
import TicTacTime

/// What the engine said about itself at the bot's start (PbrainProbe).
public struct EngineProbeResult: Sendable {
    /// ABOUT's answer, "name version".
    public let about: String?
    /// The k = 5 boards it answered OK to.
    public let sizes: [BoardSize]
    /// Lines for the log: refusals, its MESSAGE lines, a timeout.
    public let notes: [String]
}

/// Runs the engine once before the daemon starts: ABOUT, then START/RECTSTART for every
/// candidate board, then END (PbrainProbe), on `reactor` with the pipes nonblocking like every
/// later game. Nothing else is on the loop yet, so the start simply waits for it, at most
/// `answerTimeout` per answer.
public enum EngineProber {
    public static func probe(command: String, limits: EngineLimits, reactor: Reactor,
                             candidates: [BoardSize] = EngineBoards.candidates,
                             answerTimeout: Duration = .seconds(10)) throws(NetError) -> EngineProbeResult {
        var probe = PbrainProbe(candidates: candidates)
        let process = try EngineProcess(command: command, limits: limits, reactor: reactor)
        defer { process.kill() }
        var lastAnswer = reactor.now
        process.onLine = { line in
            probe.received(line)
            lastAnswer = reactor.now
            process.resetBudget()
            let out = probe.poll()
            if !out.isEmpty { process.send(out) }
        }
        process.onEnd = { why in probe.giveUp("the engine \(why) while answering \(probe.waitingFor)") }
        process.send(probe.poll())
        while !probe.done {
            let waited = reactor.now - lastAnswer
            if waited >= answerTimeout {
                probe.giveUp("no answer to \(probe.waitingFor) within \(answerTimeout)")
                break
            }
            try reactor.runOnce(maxWait: answerTimeout - waited)
        }
        return EngineProbeResult(about: probe.about, sizes: probe.accepted, notes: probe.notes)
    }
}
