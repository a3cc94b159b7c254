#if canImport(Glibc)
import Glibc
#endif

/// The system's cryptographic generator, read 512 bytes at a time: one getrandom(2) per 64
/// draws, where the stdlib's SystemRandomNumberGenerator makes one per draw (a 3 x 3 game draws
/// several: its id, the commitment's secret and nonce, PING nonces). Copies share one pool (a
/// class), so no two copies ever hand out the same bytes; a drawn word is wiped from the pool.
/// Single-threaded, like the reactor that uses it.
public struct BufferedSystemRandom: RandomNumberGenerator {
    private final class Pool {
        var words = [UInt64](repeating: 0, count: 64)
        var used = 64 // empty: the first draw fills it

        func refill() {
            // glibc's arc4random_buf: one getrandom(2) for the whole pool; it never fails.
            words.withUnsafeMutableBytes { b in
                if let base = b.baseAddress { arc4random_buf(base, b.count) }
            }
            used = 0
        }
    }

    private let pool = Pool()

    public init() {}

    public mutating func next() -> UInt64 {
        if pool.used == pool.words.count { pool.refill() }
        defer {
            pool.words[pool.used] = 0 // a drawn word does not stay in memory
            pool.used += 1
        }
        return pool.words[pool.used]
    }
}
