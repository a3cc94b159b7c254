import TicTacCrypto
import Foundation
import Testing
import TicTacAPI
import TicTacEngine
import TicTacWire
@testable import TicTacDaemonCore
import TicTacTime

/// Two cores on one link through a relay the test controls: it sees every byte either way and
/// may change, add or drop them (the attacker on the LAN of Protocol.md §4).
private struct Relay {
    var cores: [DaemonCore]
    /// Bytes each core sent, per direction (0: from the dialler).
    var wire: [[UInt8]] = [[], []]
    var closed = [false, false]
    var events: [[DaemonEvent]] = [[], []]
    private var decoders = [FrameDecoder(), FrameDecoder()]
    /// Rewrites the bytes core `from` sent before the other core reads them.
    var tamper: ((_ from: Int, _ bytes: [UInt8]) -> [UInt8])?

    init(_ a: DaemonConfig, _ b: DaemonConfig) {
        cores = [DaemonCore(config: a), DaemonCore(config: b)]
        cores[0].handle(.linkOpened(1, outgoing: true, address: "198.18.0.2", port: 5000), now: .zero)
        cores[1].handle(.linkOpened(1, outgoing: false, address: "198.18.0.1", port: nil), now: .zero)
    }

    /// Moves bytes both ways until neither core sends more.
    mutating func pump() {
        for _ in 0..<200 {
            var moved = false
            for i in 0..<2 {
                var out: [UInt8] = []
                for action in cores[i].pollActions() {
                    switch action {
                    case let .send(_, bytes): out += bytes
                    case .close: closed[i] = true
                    case let .event(e): events[i].append(e)
                    default: break
                    }
                }
                guard !out.isEmpty else { continue }
                moved = true
                wire[i] += out
                deliver(tamper?(i, out) ?? out, to: 1 - i)
            }
            if !moved { return }
        }
    }

    /// Hands `bytes` to core `i` as if they came off its socket.
    mutating func deliver(_ bytes: [UInt8], to i: Int) {
        guard !closed[i] else { return }
        decoders[i].feed(bytes)
        while let frame = try? decoders[i].next() { cores[i].handle(.frame(1, frame), now: .zero) }
    }

    /// Frames core `i` sent, in order.
    func frames(_ i: Int) -> [Frame] {
        var d = FrameDecoder()
        d.feed(wire[i])
        var out: [Frame] = []
        while let f = try? d.next() { out.append(Frame(version: f.version, type: f.type, flags: f.flags, payload: Array(f.payload))) }
        return out
    }
}

private func hex(_ s: String) -> [UInt8] {
    let digits = Array(s.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16) ?? 0 }
}

@Suite struct AuthenticatedStreamTests {
    // Protocol.md §4, "Vectors": RFC 7748's X25519 keys, fixed ids and marked nonces.
    static let diallerScalar = hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
    static let acceptorScalar = hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
    static let dialler = HandshakeTranscript.Side(
        id: ID128(high: 0x0011_2233_4455_6677, low: 0x8899_aabb_ccdd_eeff),
        nonce: HandshakeTranscript.marked(ID128(high: 0x0102_0304_0506_0708, low: 0), maxVersion: 2),
        ephemeralKey: hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"))
    static let acceptor = HandshakeTranscript.Side(
        id: ID128(high: 0xffee_ddcc_bbaa_9988, low: 0x7766_5544_3322_1100),
        nonce: HandshakeTranscript.marked(ID128(high: 0x1112_1314_1516_1718, low: 0), maxVersion: 2),
        ephemeralKey: hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"))
    static let diallerKey = hex("2bc65058523715e6d2d5da54db2132227bc29d7201fd098788f1b054e94551ff")
    static let acceptorKey = hex("9b6a95792ebbd8f9354b9d4ba775891f710968256fb64e01221f808c8067691b")
    static let sealedMove = hex("54544143 02 24 0000 00000015 3c382c5c1e f69f0b7d066e52dbe5826881a6b2ee81")

    /// Protocol.md's ```hex blocks marked `session=KIND`, by kind (comments after `#` dropped).
    static func specVectors() throws -> [String: [UInt8]] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Protocol.md").standardized
        let text = try String(contentsOf: url, encoding: .utf8)
        var out: [String: [UInt8]] = [:]
        var kind: String?
        var body = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```hex"), let attr = line.split(separator: " ").first(where: { $0.hasPrefix("session=") }) {
                kind = String(attr.dropFirst("session=".count))
                body = ""
            } else if line.hasPrefix("```"), let k = kind {
                out[k] = hex(body)
                kind = nil
            } else if kind != nil {
                body += line.split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
            }
        }
        return out
    }

    @Test func protocolMdsVersionTwoVectorsAreWhatTheCodeComputes() throws {
        let v = try Self.specVectors()
        let d = try #require(EphemeralKey(privateKey: v["dialler-private"] ?? []))
        let a = try #require(EphemeralKey(privateKey: v["acceptor-private"] ?? []))
        let shared = try #require(d.sharedSecret(with: a.publicKey))
        #expect(shared == v["shared"])
        let session = HandshakeTranscript.session(
            version: 2, dialler: .init(id: Self.dialler.id, nonce: Self.dialler.nonce, ephemeralKey: d.publicKey),
            acceptor: .init(id: Self.acceptor.id, nonce: Self.acceptor.nonce, ephemeralKey: a.publicKey))
        #expect(session == v["session"])
        #expect(Array(SHA256.hash(data: session)) == v["salt"])
        let keys = SessionKeys.derive(sharedSecret: shared, session: session)
        #expect(keys.diallerToAcceptor == v["dialler-key"])
        #expect(keys.acceptorToDialler == v["acceptor-key"])
        var cipher = keys.cipher(dialler: true)
        var bytes = Message.move(cell: 4).encoded(version: 2)
        #expect(cipher.seal(&bytes, frameAt: 0))
        #expect(bytes == v["sealed-move"])
    }

    @Test func theKeyScheduleGivesTheVectorsBytes() throws {
        let d = try #require(EphemeralKey(privateKey: Self.diallerScalar))
        let a = try #require(EphemeralKey(privateKey: Self.acceptorScalar))
        #expect(d.publicKey == Self.dialler.ephemeralKey)
        #expect(a.publicKey == Self.acceptor.ephemeralKey)
        let secret = try #require(d.sharedSecret(with: a.publicKey))
        #expect(secret == hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"))
        #expect(a.sharedSecret(with: d.publicKey) == secret)
        let session = HandshakeTranscript.session(version: 2, dialler: Self.dialler, acceptor: Self.acceptor)
        #expect(session == Array("tictac-session-v2".utf8) + [2]
            + hex("00112233445566778899aabbccddeeff 0102030405060708 5454414300000002") + Self.dialler.ephemeralKey!
            + hex("ffeeddccbbaa99887766554433221100 1112131415161718 5454414300000002") + Self.acceptor.ephemeralKey!)
        #expect(Array(SHA256.hash(data: session)) == hex("74ec3f394fa362dae7888df52ed0c924f7e65eae2ce17e09cf6ac766ad03ac8e"))
        let keys = SessionKeys.derive(sharedSecret: secret, session: session)
        #expect(keys.diallerToAcceptor == Self.diallerKey)
        #expect(keys.acceptorToDialler == Self.acceptorKey)
        // The dialler's PROOF signs its side first; the bytes are the session's but for the label.
        let proof = HandshakeTranscript.bytes(version: 2, signer: Self.dialler, verifier: Self.acceptor)
        #expect(proof.count == HandshakeTranscript.lengthV2)
        #expect(proof == Array("tictac-proof-v2".utf8) + session.dropFirst(17))
    }

    @Test func aSealedFrameIsTheVectorsBytesAndOpensOnceInOrder() throws {
        var dialler = LinkCipher(sealKey: Self.diallerKey, openKey: Self.acceptorKey)
        var acceptor = LinkCipher(sealKey: Self.acceptorKey, openKey: Self.diallerKey)
        var bytes = Message.move(cell: 4).encoded(version: 2)
        #expect(dialler.seal(&bytes, frameAt: 0))
        #expect(bytes == Self.sealedMove)
        let frame = try #require(try Frame.decodeDatagram(bytes))
        var copy = acceptor
        #expect(try copy.open(frame).map { try Message(frame: $0) } == .move(cell: 4))
        // Every byte matters: header (associated data; the magic and length are checked by the
        // stream decoder first), ciphertext and tag.
        for i in 4..<bytes.count where !(8...11).contains(i) {
            var bad = bytes
            bad[i] ^= 0x01
            var c = acceptor
            #expect(c.open(try Frame.decodeDatagram(bad)) == nil, "byte \(i) flipped")
        }
        // Replayed (the counter moved on), or sealed the other way (a reflection): refused.
        #expect(acceptor.open(frame) != nil)
        #expect(acceptor.open(frame) == nil)
        var back = dialler
        #expect(back.open(frame) == nil)
    }

    @Test func framesOpenedIntoOneBufferKeepAHeldPayloadIntact() throws {
        var dialler = LinkCipher(sealKey: Self.diallerKey, openKey: Self.acceptorKey)
        var acceptor = LinkCipher(sealKey: Self.acceptorKey, openKey: Self.diallerKey)
        func sealed(_ m: Message) throws -> Frame {
            var bytes = m.encoded(version: 2)
            #expect(dialler.seal(&bytes, frameAt: 0))
            return try #require(try Frame.decodeDatagram(bytes))
        }
        var buffer: [UInt8] = []
        let first = try #require(acceptor.open(try sealed(.move(cell: 4)), reusing: &buffer))
        // The first payload is still held while the next frame, of the same size (so the buffer
        // is not regrown), is opened into the same buffer: it must not change under its holder.
        let second = try #require(acceptor.open(try sealed(.move(cell: 7)), reusing: &buffer))
        #expect(try Message(frame: first) == .move(cell: 4))
        #expect(try Message(frame: second) == .move(cell: 7))
        // Once no payload is held, the buffer is written in place: no new one per frame.
        _ = consume first
        _ = consume second
        let before = buffer.withUnsafeBufferPointer { $0.baseAddress }
        let third = try #require(acceptor.open(try sealed(.move(cell: 2)), reusing: &buffer))
        #expect(try Message(frame: third) == .move(cell: 2))
        #expect(buffer.withUnsafeBufferPointer { $0.baseAddress } == before)
        // A frame that does not open gives nothing, whatever the buffer held.
        var bad = try sealed(.move(cell: 5))
        bad.payload[bad.payload.startIndex] ^= 0x01
        #expect(acceptor.open(bad, reusing: &buffer) == nil)
    }

    @Test func aSpentCounterSealsNothing() {
        var c = LinkCipher(sealKey: Self.diallerKey, openKey: Self.acceptorKey)
        c.sealCounter = UInt64.max - 1
        var bytes = Message.leave.encoded(version: 2)
        #expect(c.seal(&bytes, frameAt: 0))
        var next = Message.leave.encoded(version: 2)
        #expect(!c.seal(&next, frameAt: 0))
        #expect(next == Message.leave.encoded(version: 2))
    }

    // MARK: - Strict verification

    /// The identity point as a key, R = the identity point, S = 0: [S]B = R + [k]A for every k.
    static let identityPoint: [UInt8] = [1] + [UInt8](repeating: 0, count: 31)
    static let smallOrderSignature: [UInt8] = [1] + [UInt8](repeating: 0, count: 63)

    @Test func aSmallOrderKeyProvesNothing() throws {
        let message = HandshakeTranscript.bytes(version: 1, signer: ID128(high: 1, low: 1), signerNonce: ID128(high: 2, low: 2),
                                                verifier: ID128(high: 3, low: 3), verifierNonce: ID128(high: 4, low: 4))
        // A cofactorless check alone takes it ([0]B = identity + [k]identity): this is what
        // strict verification is for. Ours refuses it before any library is asked.
        #expect(!StrictEd25519.acceptsKey(Self.identityPoint) && !StrictEd25519.acceptsSignature(Self.smallOrderSignature))
        #expect(!Identity.verify(Self.smallOrderSignature, of: message, publicKey: Self.identityPoint))
        #expect(!Identity.verify(Self.smallOrderSignature, of: message, publicKey: [UInt8](repeating: 0, count: 32)))
        for bad in StrictEd25519.smallOrder {
            #expect(!StrictEd25519.acceptsKey(bad))
            var signed = bad
            signed[31] |= 0x80
            #expect(!StrictEd25519.acceptsKey(signed), "with x's sign bit")
        }
        // A HELLO with that key and the id it hashes to is refused before any PROOF.
        var core = DaemonCore(config: config("acceptor", seed: 61))
        core.handle(.linkOpened(1, outgoing: false, address: "198.18.0.2", port: nil), now: .zero)
        _ = core.pollActions()
        let hello = Hello(instanceID: Identity.instanceID(forPublicKey: Self.identityPoint), name: try DisplayName("nobody"),
                          capabilities: [.tictactoe], publicKey: Self.identityPoint, nonce: ID128(high: 1, low: 1))
        core.handle(.frame(1, Message.hello(hello).frame(version: 1)), now: .zero)
        let sent: [Message] = core.pollActions().compactMap { action in
            guard case let .send(_, bytes) = action else { return nil }
            return try? Message(frame: Frame.decodeDatagram(bytes))
        }
        #expect(sent.contains { if case let .error(code, _) = $0 { code == ErrorCode.badIdentity.rawValue } else { false } })
        #expect(!sent.contains { $0.kind == .proof })
    }

    @Test func aSignatureWithSAboveTheOrderIsRefused() throws {
        let id = try Identity(privateKey: [UInt8](repeating: 7, count: 32))
        let message: [UInt8] = Array("tictac".utf8)
        let signature = try #require(id.sign(message))
        #expect(Identity.verify(signature, of: message, publicKey: id.publicKey))
        // S + L: the same point once reduced, a second encoding of the same signature.
        var s = Array(signature[32...]), carry = 0
        for i in 0..<32 {
            let sum = Int(s[i]) + Int(StrictEd25519.order[i]) + carry
            s[i] = UInt8(sum & 0xff)
            carry = sum >> 8
        }
        #expect(carry == 0)
        #expect(!Identity.verify(Array(signature[..<32]) + s, of: message, publicKey: id.publicKey))
    }

    // MARK: - Two version-2 daemons through a relay

    private func readyPair() -> Relay {
        var r = Relay(config("ann", seed: 31), config("ben", seed: 32))
        r.pump()
        return r
    }

    @Test func twoVersionTwoDaemonsSealEveryFrameAfterTheProofs() throws {
        var r = readyPair()
        #expect(r.cores[0].peers.count == 1 && r.cores[1].peers.count == 1)
        #expect(r.frames(0).map(\.type) == [Message.Kind.hello.rawValue, Message.Kind.proof.rawValue])
        #expect(r.frames(0).allSatisfy { $0.version == 2 })
        try r.cores[0].perform(.invite("ben"), now: .zero)
        r.pump()
        let invite = try #require(r.frames(0).last)
        #expect(invite.type == Message.Kind.invite.rawValue)
        let plain = Message.invite(Invite(gameID: ID128(high: 0, low: 0))).payload.count
        #expect(invite.payload.count == plain + SealedFrame.tagLength)
        #expect(r.events[1].contains { if case .invited = $0 { true } else { false } })
        try r.cores[1].perform(.accept, now: .zero)
        r.pump()
        #expect(r.cores[0].currentGame != nil && r.cores[1].currentGame != nil)
        #expect(!r.closed[0] && !r.closed[1])
    }

    @Test func anInjectedResignClosesTheLinkAndChangesNoGame() throws {
        var r = readyPair()
        try r.cores[0].perform(.invite("ben"), now: .zero)
        r.pump()
        try r.cores[1].perform(.accept, now: .zero)
        r.pump()
        let before = r.wire[1].count
        // The relay writes a RESIGN "from ann" into ben's stream, as it could in version 1.
        r.deliver(Message.resign.encoded(version: 2), to: 1)
        r.pump()
        #expect(r.closed[1], "ben closes the link")
        #expect(r.wire[1].count == before, "and sends nothing: no ERROR to learn from")
        #expect(!r.events[1].contains { if case .game(.gameOver, _) = $0 { true } else { false } }, "no game was won by it")
    }

    @Test func anAlteredReplayedOrReorderedFrameClosesTheLink() throws {
        for attack in ["flip", "replay", "reorder"] {
            var r = readyPair()
            var held: [UInt8] = []
            r.tamper = { from, bytes in
                guard from == 0, bytes.count > 5, bytes[5] != Message.Kind.hello.rawValue, bytes[5] != Message.Kind.proof.rawValue else { return bytes }
                switch attack {
                case "flip": var b = bytes; b[b.count - 1] ^= 0x80; return b
                case "replay": return bytes + bytes
                default:
                    // Holds the first sealed frame back and lets it through behind the next one.
                    if held.isEmpty { held = bytes; return [] }
                    return bytes + held
                }
            }
            try r.cores[0].perform(.invite("ben"), now: .zero)
            r.pump()
            if attack == "reorder" {
                try r.cores[0].perform(.cancel, now: .zero)
                r.pump()
            }
            #expect(r.closed[1], "\(attack): ben closes the link")
            #expect(!r.events[1].contains { if case .invited = $0 { true } else { false } } || attack == "replay",
                    "\(attack): nothing altered is acted on")
        }
    }

    /// A relay that rewrites both HELLOs to offer version 1 only (dropping field 8): each daemon
    /// sees the other's signed nonce declare version 2 and refuses (Protocol.md §4).
    @Test func aRelayCannotDowngradeTwoVersionTwoDaemons() throws {
        var r = Relay(config("ann", seed: 31), config("ben", seed: 32))
        r.tamper = { _, bytes in
            var d = FrameDecoder()
            d.feed(bytes)
            guard let f = try? d.next(), case var .hello(h)? = try? Message(frame: f) else { return bytes }
            h.maxVersion = 1
            h.ephemeralKey = nil
            return Message.hello(h).encoded(version: 1) + Array(bytes.dropFirst(Frame.headerLength + f.payload.count))
        }
        r.pump()
        #expect(r.cores[0].peers.isEmpty && r.cores[1].peers.isEmpty)
        for i in 0..<2 {
            let refused = r.frames(i).contains { f in
                if case let .error(code, _)? = try? Message(frame: f) { code == ErrorCode.unsupportedVersion.rawValue } else { false }
            }
            #expect(refused, "daemon \(i) refuses the downgraded HELLO")
        }
    }

    @Test func aVersionOnePeerStillPlaysInClear() throws {
        var old = config("old", seed: 33)
        old.versions = 1...1
        var r = Relay(old, config("ben", seed: 32))
        r.pump()
        #expect(r.cores[0].peers.count == 1 && r.cores[1].peers.count == 1)
        try r.cores[0].perform(.invite("ben"), now: .zero)
        r.pump()
        let frames = r.frames(0)
        #expect(frames.allSatisfy { $0.version == 1 })
        #expect(frames.compactMap { try? Message(frame: $0) }.map(\.kind) == [.hello, .proof, .invite])
        #expect(r.frames(1).allSatisfy { $0.version == 1 || $0.type == Message.Kind.hello.rawValue })
    }

    /// Protocol.md §5: an ERROR is never answered with ERROR, even one that does not decode
    /// (a message over 256 bytes): the link just closes.
    @Test func anUnreadableErrorIsNotAnsweredWithError() throws {
        var core = DaemonCore(config: config("ann", seed: 31))
        core.handle(.linkOpened(1, outgoing: false, address: "198.18.0.2", port: nil), now: .zero)
        _ = core.pollActions()
        var payload: [UInt8] = [1, 0, 2, 0, 1, 2, 1, 44]
        payload += [UInt8](repeating: 0x41, count: 300)
        core.handle(.frame(1, Frame(version: 1, type: Message.Kind.error.rawValue, payload: payload)), now: .zero)
        let actions = core.pollActions()
        #expect(!actions.contains { if case .send = $0 { true } else { false } })
        #expect(actions.contains { if case .close(1, _) = $0 { true } else { false } })
    }

    /// Protocol.md §2/§4: after the peer's HELLO an unknown IGNORABLE frame is skipped, also
    /// between HELLO and PROOF; the handshake then completes.
    @Test func anIgnorableFrameBetweenHelloAndProofIsSkipped() throws {
        var r = Relay(config("ann", seed: 31), config("ben", seed: 32))
        r.tamper = { from, bytes in
            guard from == 0, bytes.count > 5, bytes[5] == Message.Kind.hello.rawValue else { return bytes }
            return bytes + Frame(version: 2, type: 0x7f, flags: Frame.ignorableFlag, payload: [1, 2, 3]).bytes
        }
        r.pump()
        #expect(r.cores[0].peers.count == 1 && r.cores[1].peers.count == 1)
        #expect(!r.closed[0] && !r.closed[1])
    }
}
