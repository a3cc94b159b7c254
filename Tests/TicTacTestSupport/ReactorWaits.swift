import TicTacNet
import TicTacTime

/// Turns `reactor` until `done()` holds or `limit` has passed; whether `done()` came true.
/// Not discardable: a wait that ran out must fail its test (`#require`, `#expect`), or the steps
/// after it run against a state nobody checked.
public func run(_ reactor: Reactor, for limit: Duration = .seconds(20), until done: () -> Bool) throws -> Bool {
    let end = reactor.now + limit
    while !done() {
        if reactor.now >= end { return false }
        // Short turns: some conditions (a blocking test client's socket) are not on the reactor.
        try reactor.runOnce(maxWait: .milliseconds(20))
    }
    return true
}

/// Turns `reactor` for all of `duration`, calling `step` after every turn: for a test that checks
/// what did not happen meanwhile (no close, no answer), where there is no event to wait for.
public func turn(_ reactor: Reactor, for duration: Duration, step: () -> Void = {}) throws {
    let end = reactor.now + duration
    while reactor.now < end {
        try reactor.runOnce(maxWait: min(.milliseconds(20), end - reactor.now))
        step()
    }
}
