import TicTacEngine
import TicTacWire

/// The core's one generator (the system's cryptographic one in the app, seeded in tests),
/// shared by its parts: nonces, game ids and PING payloads are drawn from it in the order the
/// inputs ask, so a seeded core replays a capture exactly.
final class CoreRandom {
    private var random: AnyRandom

    init(_ random: AnyRandom) {
        self.random = random
    }

    func id() -> ID128 { ID128.random(using: &random) }

    func next() -> UInt64 { random.next() }
}
