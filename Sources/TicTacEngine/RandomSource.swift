/// The one source of everything random a daemon draws: identity key, handshake and PING
/// nonces, game ids, die rolls and commitment nonces, bot choices, discovery jitter.
///
/// In normal runs every generator it makes is the system's cryptographic one (buffered:
/// `BufferedSystemRandom`). Seeded (tests,
/// and the `--seed` test option), it hands out SplitMix64 generators derived in a fixed order
/// from the seed, so a packet capture plus the seed replays a session byte for byte. A seeded
/// source is guessable: never use one for a daemon on a real network.
public final class RandomSource {
    /// The seed, or nil for the system's generator.
    public let seed: UInt64?
    private var children: SplitMix64?

    /// A source of system randomness (`seed == nil`) or of generators derived from `seed`.
    public init(seed: UInt64? = nil) {
        self.seed = seed
        children = seed.map { SplitMix64(seed: $0) }
    }

    /// A fresh generator: the system's, or the next one derived from the seed (the n-th call
    /// always gives the same generator for the same seed).
    public func makeGenerator() -> any RandomNumberGenerator {
        guard var children else { return BufferedSystemRandom() }
        let child = SplitMix64(seed: children.next())
        self.children = children
        return child
    }

    /// An independent source for another part of the program (e.g. discovery), so that what
    /// one part draws does not shift the other's sequence: a replay may run one without the other.
    public func fork(_ label: UInt64) -> RandomSource {
        guard let seed else { return RandomSource() }
        var mix = SplitMix64(seed: seed ^ label)
        return RandomSource(seed: mix.next())
    }
}
