/// The bytes a PROOF signs (Protocol.md §4, "The proof"). Pure byte layout: the signing itself
/// lives with the key, in the daemon.
public enum HandshakeTranscript {
    /// Domain separation: these 15 ASCII bytes open every transcript, so a signature made for
    /// the handshake cannot be taken for a signature over anything else.
    public static let label: [UInt8] = Array("tictac-proof-v1".utf8)
    /// label (15) + version (1) + two ids and two nonces (4 x 16).
    public static let length = 80

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
}
