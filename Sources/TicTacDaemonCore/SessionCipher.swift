import CSodium
import TicTacCrypto
import TicTacWire

// Sealing and opening live in the core, beside the handshake that makes the keys: crypto is
// pure (no I/O), the switch to sealed frames falls exactly between two frames, and a seeded
// core seals the same bytes every run (so a capture replays).

/// A link's ephemeral X25519 key (Protocol.md §4, HELLO field 8), made from the core's
/// generator so a seeded daemon sends the same key every run. Used once, then dropped.
struct EphemeralKey {
    private let key: [UInt8]
    /// The 32 bytes HELLO carries.
    let publicKey: [UInt8]

    /// From 32 bytes (an X25519 scalar, clamped by the function itself).
    init?(privateKey: [UInt8]) {
        guard let publicKey = X25519.publicKey(privateKey: privateKey) else { return nil }
        key = privateKey
        self.publicKey = publicKey
    }

    /// X25519 with the peer's key; nil for a key that gives the all-zero secret (a small-order
    /// point: Protocol.md §4 refuses it) or is not 32 bytes.
    func sharedSecret(with peerKey: [UInt8]) -> [UInt8]? {
        guard let bytes = X25519.sharedSecret(privateKey: key, peerKey: peerKey) else { return nil }
        return bytes.contains(where: { $0 != 0 }) ? bytes : nil // libsodium refuses it too
    }
}

/// Version 2's key schedule (Protocol.md §4, "The key schedule").
struct SessionKeys: Equatable {
    /// The key the dialler seals with and the acceptor opens with.
    let diallerToAcceptor: [UInt8]
    let acceptorToDialler: [UInt8]

    /// salt = SHA-256(session transcript); each key = HKDF-SHA256(shared secret, salt, info, 32).
    static func derive(sharedSecret: [UInt8], session: [UInt8]) -> SessionKeys {
        let salt = SHA256.hash(data: session)
        func key(_ info: [UInt8]) -> [UInt8] {
            HKDF.sha256Key(inputKeyMaterial: sharedSecret, salt: salt, info: info)
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
/// 2^64 - 1 is never used, the link closes instead. libsodium seals and opens in place, so a
/// frame costs no copy beyond its plain payload (docs/performance.md).
public struct LinkCipher {
    /// Both keys in one object: a link copies its cipher out to seal or open a frame
    /// (`Link.seal`), and one reference counts less than two arrays.
    private let keys: Keys
    private var sealKey: [UInt8] { keys.seal }
    private var openKey: [UInt8] { keys.open }
    /// The counter of the next frame we seal, and of the next we open.
    var sealCounter: UInt64 = 0
    var openCounter: UInt64 = 0

    /// Keys of 32 bytes (a key of another length seals and opens nothing).
    public init(sealKey: [UInt8], openKey: [UInt8]) {
        keys = Keys(seal: sealKey, open: openKey)
    }

    /// Seals the frame that starts at `start` and runs to the end of `buffer`, in place: the
    /// length field grows by the tag, the payload is encrypted, the tag appended. False (the
    /// buffer unchanged) when the counter is spent or the payload too long to seal.
    mutating func seal(_ buffer: inout [UInt8], frameAt start: Int) -> Bool {
        let body = start + Frame.headerLength
        let length = buffer.count - body
        guard Sodium.ready, sealCounter < UInt64.max, sealKey.count == 32, start >= 0,
              length >= 0, length <= SealedFrame.maxPayloadLength else { return false }
        let sealed = UInt32(length + SealedFrame.tagLength)
        for i in 0..<4 { buffer[start + 8 + i] = UInt8(truncatingIfNeeded: sealed >> (24 - 8 * i)) }
        withUnsafeBytes(of: (UInt64(0), UInt64(0))) { zeros in // the tag's 16 bytes, as typed bytes (Fields.swift)
            zeros.withMemoryRebound(to: UInt8.self) { buffer.append(contentsOf: $0) }
        }
        let rc = Self.withNonce(sealCounter) { nonce in
            sealKey.withUnsafeBufferPointer { key in
                buffer.withUnsafeMutableBufferPointer { b -> Int32 in
                    guard let p = b.baseAddress, let k = key.baseAddress else { return -1 }
                    return crypto_aead_chacha20poly1305_ietf_encrypt_detached(
                        p + body, p + body + length, nil, p + body, UInt64(length), p + start, UInt64(Frame.headerLength),
                        nil, nonce, k)
                }
            }
        }
        guard rc == 0 else { // as it was
            buffer.removeLast(SealedFrame.tagLength)
            for i in 0..<4 { buffer[start + 8 + i] = UInt8(truncatingIfNeeded: UInt32(length) >> (24 - 8 * i)) }
            return false
        }
        sealCounter += 1
        return true
    }

    /// The plain frame inside a sealed one, or nil when it does not open (altered, injected,
    /// replayed, reordered, or sealed with another key).
    public mutating func open(_ frame: Frame) -> Frame? {
        var buffer: [UInt8] = []
        return open(frame, reusing: &buffer)
    }

    /// As `open(_:)`, the plain payload written into `buffer` (grown when short) and handed out
    /// as a slice of it: a buffer kept from frame to frame is written in place once the last
    /// frame's payload is gone (copy on write keeps a payload still held intact).
    public mutating func open(_ frame: Frame, reusing buffer: inout [UInt8]) -> Frame? {
        let n = frame.payload.count
        guard Sodium.ready, openCounter < UInt64.max, openKey.count == 32, n >= SealedFrame.tagLength else { return nil }
        let plainCount = n - SealedFrame.tagLength
        if buffer.count < plainCount { buffer = [UInt8](repeating: 0, count: plainCount) }
        let opened = buffer.withUnsafeMutableBufferPointer { out in
            Self.withNonce(openCounter) { nonce in
                Self.withHeader(frame, sealedLength: n) { header in
                    openKey.withUnsafeBufferPointer { key in
                        frame.payload.withUnsafeBufferPointer { c -> Bool in
                            guard let cipher = c.baseAddress, let k = key.baseAddress else { return false }
                            return crypto_aead_chacha20poly1305_ietf_decrypt_detached(
                                out.baseAddress, nil, cipher, UInt64(plainCount), cipher + plainCount,
                                header, UInt64(Frame.headerLength), nonce, k) == 0
                        }
                    }
                }
            }
        }
        guard opened else { return nil }
        openCounter += 1
        return Frame(version: frame.version, type: frame.type, flags: frame.flags, payload: buffer[0..<plainCount])
    }

    /// The 12-byte nonce of frame `counter` (SealedFrame.nonce), on the stack.
    private static func withNonce<R>(_ counter: UInt64, _ body: (UnsafePointer<UInt8>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SealedFrame.nonceLength) { n in
            SealedFrame.writeNonce(counter: counter, into: UnsafeMutableRawBufferPointer(n))
            return body(UnsafePointer(n.baseAddress!))
        }
    }

    /// The header `frame` was sealed under (SealedFrame.header), on the stack.
    private static func withHeader<R>(_ frame: Frame, sealedLength: Int, _ body: (UnsafePointer<UInt8>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Frame.headerLength) { h in
            SealedFrame.writeHeader(version: frame.version, type: frame.type, flags: frame.flags, sealedLength: sealedLength,
                                    into: UnsafeMutableRawBufferPointer(h))
            return body(UnsafePointer(h.baseAddress!))
        }
    }
}

/// A link's two traffic keys, never changed once made.
private final class Keys {
    let seal: [UInt8]
    let open: [UInt8]

    init(seal: [UInt8], open: [UInt8]) {
        self.seal = seal
        self.open = open
    }
}
