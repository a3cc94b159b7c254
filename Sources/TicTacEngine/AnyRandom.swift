/// Type-erased random number generator, so sessions can hold the system generator in
/// production and a seeded one in tests.
public struct AnyRandom: RandomNumberGenerator {
    private var base: any RandomNumberGenerator

    public init(_ base: any RandomNumberGenerator) { self.base = base }

    public mutating func next() -> UInt64 { base.next() }
}
