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
        var w = ByteWriter(capacity: 12)
        w.write(UInt32(0))
        w.write(counter)
        return w.bytes
    }

    /// The HKDF info of the key the dialler seals with (and the acceptor opens with).
    public static let diallerInfo: [UInt8] = Array("tictac-v2 dialler to acceptor".utf8)
    /// The HKDF info of the key the acceptor seals with.
    public static let acceptorInfo: [UInt8] = Array("tictac-v2 acceptor to dialler".utf8)

    /// The header a frame of `payloadLength` sealed bytes (tag included) carries.
    public static func header(version: UInt8, type: UInt8, flags: UInt16, sealedLength: Int) -> [UInt8] {
        var w = ByteWriter(capacity: Frame.headerLength)
        w.write(Frame.magic)
        w.write(version)
        w.write(type)
        w.write(flags)
        w.write(UInt32(sealedLength))
        return w.bytes
    }
}
