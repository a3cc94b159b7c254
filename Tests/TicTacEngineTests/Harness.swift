import TicTacEngine
import TicTacWire
import TicTacTime

/// Returns the first `shared` values from a common seed, then values from its own seed: two
/// sessions built with the same `shared` seed roll the same first die (a forced tie).
struct PrefixedRandom: RandomNumberGenerator {
    var shared: SplitMix64
    var own: SplitMix64
    var sharedLeft: Int

    init(sharedSeed: UInt64, sharedCount: Int, ownSeed: UInt64) {
        shared = SplitMix64(seed: sharedSeed)
        own = SplitMix64(seed: ownSeed)
        sharedLeft = sharedCount
    }

    mutating func next() -> UInt64 {
        if sharedLeft > 0 {
            sharedLeft -= 1
            return shared.next()
        }
        return own.next()
    }
}

/// Two sessions joined back to back with instant, in-order delivery, every message going
/// through the real encoder and decoder. Records what each side was shown.
struct Pair {
    var a: GameSession
    var b: GameSession
    var now = Instant.zero
    var shownA: [GameEvent] = []
    var shownB: [GameEvent] = []
    var failures: [(side: Character, code: ErrorCode, message: String)] = []
    /// The history facts each side queued (`recordsFacts`).
    var factsA: [GameFact] = []
    var factsB: [GameFact] = []
    private var toA: [Message] = []
    private var toB: [Message] = []

    init(seedA: UInt64 = 1, seedB: UInt64 = 2, size: BoardSize = .classic) {
        a = GameSession(size: size, rng: SplitMix64(seed: seedA))
        b = GameSession(size: size, rng: SplitMix64(seed: seedB))
    }

    init(a: GameSession, b: GameSession) {
        self.a = a
        self.b = b
    }

    /// Starts both sides and delivers everything until quiet.
    mutating func start() {
        a.handle(.start, now: now)
        b.handle(.start, now: now)
        pump()
    }

    /// Moves pending actions into the queues and delivers until no message is in flight.
    mutating func pump() {
        while true {
            collect()
            if !toA.isEmpty {
                let m = roundTrip(toA.removeFirst())
                a.handle(.received(m), now: now)
            } else if !toB.isEmpty {
                let m = roundTrip(toB.removeFirst())
                b.handle(.received(m), now: now)
            } else {
                return
            }
        }
    }

    /// Delivers a raw message to one side without pumping (for hostile-input tests).
    mutating func inject(_ m: Message, toA side: Bool) {
        if side { a.handle(.received(m), now: now) } else { b.handle(.received(m), now: now) }
        collect()
    }

    /// Drops every message in flight (to test a session in a chosen state).
    mutating func dropInFlight() {
        collect()
        toA.removeAll()
        toB.removeAll()
    }

    mutating func advance(to t: Instant) {
        now = t
        a.handleTimeout(now: now)
        b.handleTimeout(now: now)
        pump()
    }

    /// The side whose turn it is (true = a), or nil.
    var sideToMove: Bool? {
        if a.state == .myTurn { return true }
        if b.state == .myTurn { return false }
        return nil
    }

    mutating func move(_ cell: Int) throws {
        guard let side = sideToMove else { throw GameCommandError.noGame }
        if side { try a.perform(.move(cell), now: now) } else { try b.perform(.move(cell), now: now) }
        pump()
    }

    private mutating func collect() {
        for action in a.pollActions() {
            switch action {
            case let .send(m): toB.append(m)
            case let .show(e): shownA.append(e)
            case let .fail(c, s): failures.append(("a", c, s))
            case let .record(f, _): factsA.append(f)
            }
        }
        for action in b.pollActions() {
            switch action {
            case let .send(m): toA.append(m)
            case let .show(e): shownB.append(e)
            case let .fail(c, s): failures.append(("b", c, s))
            case let .record(f, _): factsB.append(f)
            }
        }
    }

    private func roundTrip(_ m: Message) -> Message {
        var decoder = FrameDecoder()
        decoder.feed(m.encoded())
        // A codec bug shows up as a test failure through the changed message.
        guard let frame = try? decoder.next(), let back = try? Message(frame: frame) else {
            return .error(code: ErrorCode.internalError.rawValue, message: "codec round trip failed")
        }
        return back
    }
}
