/// Version 2's sealed frame (Protocol.md §4, "The authenticated stream"): the byte layout
/// only; the keys and ChaCha20-Poly1305 live with the link, in the daemon.
///
///     offset size field
///     0      12   header in clear: magic, version, type, flags, length = n + 16
///     12     n    the payload, encrypted (ChaCha20, same length)
///     12+n   16   the Poly1305 tag over the 12-byte header (associated data) and the ciphertext
public enum SealedFrame {
    /// The Poly1305 tag's length.
    public static let tagLength = 16
    /// The largest payload a sealed frame may carry: the header's length counts the tag.
    public static let maxPayloadLength = Frame.maxPayloadLength - tagLength

    /// The 12-byte ChaCha20-Poly1305 nonce of frame `counter` (0 for a direction's first):
    /// four zero bytes, then the counter big-endian.
    public static func nonce(counter: UInt64) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: nonceLength) { out, count in
            writeNonce(counter: counter, into: UnsafeMutableRawBufferPointer(out))
            count = nonceLength
        }
    }

    public static let nonceLength = 12

    /// `nonce(counter:)` written into the first 12 bytes of `out` (a sealer's stack buffer).
    public static func writeNonce(counter: UInt64, into out: UnsafeMutableRawBufferPointer) {
        for i in 0..<4 { out[i] = 0 }
        for i in 0..<8 { out[4 + i] = UInt8(truncatingIfNeeded: counter >> (56 - 8 * i)) }
    }

    /// The HKDF info of the key the dialler seals with (and the acceptor opens with).
    public static let diallerInfo: [UInt8] = Array("tictac-v2 dialler to acceptor".utf8)
    /// The HKDF info of the key the acceptor seals with.
    public static let acceptorInfo: [UInt8] = Array("tictac-v2 acceptor to dialler".utf8)

    /// The header a frame of `payloadLength` sealed bytes (tag included) carries.
    public static func header(version: UInt8, type: UInt8, flags: UInt16, sealedLength: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Frame.headerLength) { out, count in
            writeHeader(version: version, type: type, flags: flags, sealedLength: sealedLength, into: UnsafeMutableRawBufferPointer(out))
            count = Frame.headerLength
        }
    }

    /// `header(...)` written into the first 12 bytes of `out` (an opener's stack buffer).
    public static func writeHeader(version: UInt8, type: UInt8, flags: UInt16, sealedLength: Int, into out: UnsafeMutableRawBufferPointer) {
        for i in 0..<4 { out[i] = Frame.magic[i] }
        out[4] = version
        out[5] = type
        out[6] = UInt8(truncatingIfNeeded: flags >> 8)
        out[7] = UInt8(truncatingIfNeeded: flags)
        for i in 0..<4 { out[8 + i] = UInt8(truncatingIfNeeded: UInt32(truncatingIfNeeded: sealedLength) >> (24 - 8 * i)) }
    }
}
