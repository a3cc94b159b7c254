/// The bytes a PROOF signs (Protocol.md §4, "The proof"). Pure byte layout: the signing itself
/// lives with the key, in the daemon.
public enum HandshakeTranscript {
    /// Domain separation: these 15 ASCII bytes open every transcript, so a signature made for
    /// the handshake cannot be taken for a signature over anything else.
    public static let label: [UInt8] = Array("tictac-proof-v1".utf8)
    /// label (15) + version (1) + two ids and two nonces (4 x 16).
    public static let length = 80
    /// Version 2's label (15 ASCII bytes): a version-2 signature never verifies as version 1's.
    public static let labelV2: [UInt8] = Array("tictac-proof-v2".utf8)
    /// labelV2 (15) + version (1) + two sides of id, nonce and ephemeral key (2 x 64).
    public static let lengthV2 = 144

    /// One side of a handshake as its HELLO showed it.
    public struct Side: Sendable, Equatable {
        public var id: ID128
        public var nonce: ID128
        /// The HELLO's field 8 (version 2); nil in version 1.
        public var ephemeralKey: [UInt8]?

        public init(id: ID128, nonce: ID128, ephemeralKey: [UInt8]? = nil) {
            self.id = id
            self.nonce = nonce
            self.ephemeralKey = ephemeralKey
        }
    }

    /// label || version || signer's id || signer's nonce || verifier's id || verifier's nonce.
    /// The signer's own half comes first, so a proof cannot be reflected back to its signer.
    public static func bytes(version: UInt8, signer: ID128, signerNonce: ID128,
                             verifier: ID128, verifierNonce: ID128) -> [UInt8] {
        var w = ByteWriter(capacity: length)
        w.write(label)
        w.write(version)
        for id in [signer, signerNonce, verifier, verifierNonce] {
            w.write(id.high)
            w.write(id.low)
        }
        return w.bytes
    }

    /// The transcript of `version`: version 1's above, or from version 2 on
    /// labelV2 || version || signer's id, nonce, ephemeral key || verifier's id, nonce, ephemeral key.
    /// Signing both ephemeral keys binds the session keys to the two proven ids.
    public static func bytes(version: UInt8, signer: Side, verifier: Side) -> [UInt8] {
        guard version >= 2 else {
            return bytes(version: version, signer: signer.id, signerNonce: signer.nonce,
                         verifier: verifier.id, verifierNonce: verifier.nonce)
        }
        var w = ByteWriter(capacity: lengthV2)
        w.write(labelV2)
        w.write(version)
        write(signer, to: &w)
        write(verifier, to: &w)
        return w.bytes
    }

    /// Version 2's session label (17 ASCII bytes), for the key schedule's salt.
    public static let sessionLabel: [UInt8] = Array("tictac-session-v2".utf8)

    /// What the key schedule hashes into its salt (Protocol.md §4, "The key schedule"):
    /// sessionLabel || version || dialler's id, nonce, ephemeral key || acceptor's id, nonce,
    /// ephemeral key. One order for both sides, so both derive the same keys.
    public static func session(version: UInt8, dialler: Side, acceptor: Side) -> [UInt8] {
        var w = ByteWriter(capacity: sessionLabel.count + 1 + 128)
        w.write(sessionLabel)
        w.write(version)
        write(dialler, to: &w)
        write(acceptor, to: &w)
        return w.bytes
    }

    private static func write(_ side: Side, to w: inout ByteWriter) {
        w.write(side.id.high)
        w.write(side.id.low)
        w.write(side.nonce.high)
        w.write(side.nonce.low)
        w.write(side.ephemeralKey ?? [])
    }

    // The downgrade marker (Protocol.md §4, "Version negotiation"): a daemon that speaks
    // version 2 or later ends its HELLO nonce with "TTAC" 00 00 00 and its highest version.
    // The nonce is in the peer's signed transcript, so the marker cannot be removed unseen.

    /// The last 8 bytes of a marked nonce, with the highest version in the low byte.
    static let markerWord: UInt64 = 0x5454_4143_0000_0000

    /// `nonce` with its last 8 bytes replaced by the marker of `maxVersion`; unchanged when
    /// `maxVersion` is 1 (a version-1 daemon's nonce is 16 random bytes).
    public static func marked(_ nonce: ID128, maxVersion: UInt8) -> ID128 {
        guard maxVersion >= 2 else { return nonce }
        return ID128(high: nonce.high, low: markerWord | UInt64(maxVersion))
    }

    /// The highest version a marked nonce declares, or nil for an unmarked one.
    public static func markedVersion(_ nonce: ID128) -> UInt8? {
        guard nonce.low & ~0xFF == markerWord, nonce.low & 0xFF >= 2 else { return nil }
        return UInt8(nonce.low & 0xFF)
    }
}
