import Testing
@testable import TicTacDaemonCore
import TicTacTime

/// `--engine-restarts N` is a rate (EngineRestartRate): at most N failures within any 10
/// minutes, on a simulated clock.
@Suite struct EngineRestartRateTests {
    func at(minutes: Double) -> Instant { .zero + .milliseconds(Int64(minutes * 60_000)) }

    /// Failures spread over days never rest the engine, however many there are over its life.
    @Test func failuresSpreadOverDaysNeverPauseTheEngine() {
        var rate = EngineRestartRate(limit: 8)
        for hour in 0..<72 {
            rate.failed(at: at(minutes: Double(hour) * 60))
            #expect(rate.pausedUntil(at(minutes: Double(hour) * 60)) == nil, "failure \(rate.total)")
        }
        #expect(rate.total == 72)
    }

    /// One failure more than the limit within the window rests the engine until the oldest of
    /// them is a window old; then a new burst counts from the failures still within it.
    @Test func aBurstPausesTheEngineUntilTheWindowClears() {
        var rate = EngineRestartRate(limit: 2)
        rate.failed(at: at(minutes: 0))
        rate.failed(at: at(minutes: 1))
        #expect(rate.pausedUntil(at(minutes: 1)) == nil, "two failures: within the limit")
        rate.failed(at: at(minutes: 2))
        #expect(rate.pausedUntil(at(minutes: 2)) == at(minutes: 10))
        #expect(rate.pausedUntil(at(minutes: 9.99)) == at(minutes: 10))
        #expect(rate.pausedUntil(at(minutes: 10)) == nil, "the first failure left the window")
        // At 10:30 the window holds 1, 2 and 10:30: three again, until 11.
        rate.failed(at: at(minutes: 10.5))
        #expect(rate.pausedUntil(at(minutes: 10.5)) == at(minutes: 11))
        #expect(rate.pausedUntil(at(minutes: 11)) == nil)
    }

    @Test func noRestartsMeansEveryFailureRestsTheEngineForAWindow() {
        var rate = EngineRestartRate(limit: 0, window: .seconds(60))
        #expect(rate.pausedUntil(.zero) == nil)
        rate.failed(at: at(minutes: 5))
        #expect(rate.pausedUntil(at(minutes: 5)) == at(minutes: 6))
        #expect(rate.pausedUntil(at(minutes: 6)) == nil)
        #expect(rate.windowText == "1 min")
        #expect(Duration.milliseconds(599_001).wholeSecondsRoundedUp == 600, "the time left rounds up")
        #expect(Duration.seconds(600).wholeSecondsRoundedUp == 600)
    }
}
