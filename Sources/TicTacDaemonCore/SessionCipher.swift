import Crypto
import TicTacWire

// Sealing and opening live in the core, beside the handshake that makes the keys: crypto is
// pure (no I/O), the switch to sealed frames falls exactly between two frames, and a seeded
// core seals the same bytes every run (so a capture replays).

/// A link's ephemeral X25519 key (Protocol.md §4, HELLO field 8), made from the core's
/// generator so a seeded daemon sends the same key every run. Used once, then dropped.
struct EphemeralKey {
    private let key: Curve25519.KeyAgreement.PrivateKey
    /// The 32 bytes HELLO carries.
    let publicKey: [UInt8]

    /// From 32 bytes (an X25519 scalar, clamped by the function itself).
    init?(privateKey: [UInt8]) {
        guard privateKey.count == 32, let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateKey) else {
            return nil
        }
        self.key = key
        publicKey = Array(key.publicKey.rawRepresentation)
    }

    /// X25519 with the peer's key; nil for a key that gives the all-zero secret (a small-order
    /// point: Protocol.md §4 refuses it) or is not 32 bytes.
    func sharedSecret(with peerKey: [UInt8]) -> [UInt8]? {
        guard peerKey.count == 32,
              let peer = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: peerKey),
              let secret = try? key.sharedSecretFromKeyAgreement(with: peer) else { return nil }
        let bytes = secret.withUnsafeBytes { Array($0) }
        return bytes.contains(where: { $0 != 0 }) ? bytes : nil
    }
}

/// Version 2's key schedule (Protocol.md §4, "The key schedule").
struct SessionKeys: Equatable {
    /// The key the dialler seals with and the acceptor opens with.
    let diallerToAcceptor: [UInt8]
    let acceptorToDialler: [UInt8]

    /// salt = SHA-256(session transcript); each key = HKDF-SHA256(shared secret, salt, info, 32).
    static func derive(sharedSecret: [UInt8], session: [UInt8]) -> SessionKeys {
        let salt = Array(SHA256.hash(data: session))
        func key(_ info: [UInt8]) -> [UInt8] {
            let k = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: sharedSecret), salt: salt,
                                           info: info, outputByteCount: 32)
            return k.withUnsafeBytes { Array($0) }
        }
        return SessionKeys(diallerToAcceptor: key(SealedFrame.diallerInfo), acceptorToDialler: key(SealedFrame.acceptorInfo))
    }

    /// The cipher of one side: the dialler seals with its own key and opens with the other.
    func cipher(dialler: Bool) -> LinkCipher {
        dialler ? LinkCipher(sealKey: diallerToAcceptor, openKey: acceptorToDialler)
                : LinkCipher(sealKey: acceptorToDialler, openKey: diallerToAcceptor)
    }
}

/// ChaCha20-Poly1305 on a ready version-2 link (Protocol.md §4, "The authenticated stream"):
/// one key and one 64-bit frame counter per direction. A counter never repeats: the value
/// 2^64 - 1 is never used, the link closes instead.
public struct LinkCipher {
    private let sealKey: SymmetricKey
    private let openKey: SymmetricKey
    /// The counter of the next frame we seal, and of the next we open.
    var sealCounter: UInt64 = 0
    var openCounter: UInt64 = 0

    public init(sealKey: [UInt8], openKey: [UInt8]) {
        self.sealKey = SymmetricKey(data: sealKey)
        self.openKey = SymmetricKey(data: openKey)
    }

    /// Seals the frame that starts at `start` and runs to the end of `buffer`, in place: the
    /// length field grows by the tag, the payload is encrypted, the tag appended. False (the
    /// buffer unchanged) when the counter is spent or the payload too long to seal.
    mutating func seal(_ buffer: inout [UInt8], frameAt start: Int) -> Bool {
        let body = start + Frame.headerLength
        let length = buffer.count - body
        guard sealCounter < UInt64.max, length >= 0, length <= SealedFrame.maxPayloadLength else { return false }
        let sealed = UInt32(length + SealedFrame.tagLength)
        for i in 0..<4 { buffer[start + 8 + i] = UInt8(truncatingIfNeeded: sealed >> (24 - 8 * i)) }
        guard let nonce = try? ChaChaPoly.Nonce(data: SealedFrame.nonce(counter: sealCounter)),
              let box = try? ChaChaPoly.seal(buffer[body...], using: sealKey, nonce: nonce,
                                             authenticating: buffer[start..<body]) else { return false }
        buffer.replaceSubrange(body..., with: box.ciphertext)
        buffer.append(contentsOf: box.tag)
        sealCounter += 1
        return true
    }

    /// The plain frame inside a sealed one, or nil when it does not open (altered, injected,
    /// replayed, reordered, or sealed with another key).
    public mutating func open(_ frame: Frame) -> Frame? {
        let n = frame.payload.count
        guard openCounter < UInt64.max, n >= SealedFrame.tagLength else { return nil }
        let header = SealedFrame.header(version: frame.version, type: frame.type, flags: frame.flags, sealedLength: n)
        let split = frame.payload.endIndex - SealedFrame.tagLength
        guard let nonce = try? ChaChaPoly.Nonce(data: SealedFrame.nonce(counter: openCounter)),
              let box = try? ChaChaPoly.SealedBox(nonce: nonce, ciphertext: frame.payload[..<split],
                                                  tag: frame.payload[split...]),
              let plain = try? ChaChaPoly.open(box, using: openKey, authenticating: header) else { return nil }
        openCounter += 1
        return Frame(version: frame.version, type: frame.type, flags: frame.flags, payload: Array(plain))
    }
}
