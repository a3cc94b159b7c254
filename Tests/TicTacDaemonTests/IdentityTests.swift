import Foundation
import Testing
import TicTacEngine
import TicTacNet
import TicTacWire
@testable import TicTacDaemon
@testable import TicTacDaemonCore
import TicTacTime

/// The key, the id it gives and the signatures (Protocol.md §4's vectors), and the key file.
@Suite struct IdentityTests {
    /// Protocol.md's ```hex blocks marked `identity=KIND`, by kind.
    static func identityVectors() throws -> [String: [UInt8]] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Protocol.md").standardized
        var out: [String: [UInt8]] = [:]
        var kind: String?
        var hex = ""
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if kind == nil, line.hasPrefix("```hex "), let attr = line.split(separator: " ").first(where: { $0.hasPrefix("identity=") }) {
                kind = String(attr.dropFirst("identity=".count))
                hex = ""
            } else if let k = kind, line.hasPrefix("```") {
                out[k] = stride(from: 0, to: hex.count, by: 2).map { o in
                    let s = hex.index(hex.startIndex, offsetBy: o)
                    return UInt8(hex[s..<hex.index(s, offsetBy: 2)], radix: 16) ?? 0
                }
                kind = nil
            } else if kind != nil {
                hex += (line.split(separator: "#", omittingEmptySubsequences: false).first ?? "").filter(\.isHexDigit)
            }
        }
        return out
    }

    @Test func protocolVectors() throws {
        let v = try Self.identityVectors()
        let key = try Identity(privateKey: try #require(v["private-key"]))
        #expect(key.publicKey == v["public-key"])
        #expect(key.instanceID.bytes == v["instance-id"])
        let transcript = try #require(v["transcript"])
        #expect(transcript.count == HandshakeTranscript.length)
        // Deterministic signatures (RFC 8032, libsodium's Ed25519): exactly the documented bytes.
        #expect(key.sign(transcript) == v["signature"])
        let signature = try #require(v["signature"])
        #expect(Identity.verify(signature, of: transcript, publicKey: key.publicKey))
        var flipped = signature
        flipped[10] ^= 1
        #expect(!Identity.verify(flipped, of: transcript, publicKey: key.publicKey))
        var other = transcript
        other[15] = 2 // another negotiated version
        #expect(!Identity.verify(signature, of: other, publicKey: key.publicKey))
    }

    @Test func aSeededKeyIsTheSameEveryTime() throws {
        var a = SplitMix64(seed: 7), b = SplitMix64(seed: 7)
        let x = Identity(using: &a), y = Identity(using: &b)
        #expect(x.privateKey == y.privateKey && x.instanceID == y.instanceID)
        #expect(x.sign([1, 2, 3]) == y.sign([1, 2, 3]), "a seeded session replays byte for byte")
        var c = SplitMix64(seed: 8)
        #expect(Identity(using: &c).instanceID != x.instanceID)
        #expect(throws: IdentityError.self) { try Identity(privateKey: [1, 2, 3]) }
    }

    // MARK: - The key file

    private func tempDir() throws -> String {
        let dir = NSTemporaryDirectory() + "/tictac-identity-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func aKeyFileIsCreatedPrivateAndReadBack() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state/tictac/identity"
        var rng = SplitMix64(seed: 1)
        let made = try IdentityFile.loadOrCreate(path: path, using: &rng)
        var st = stat()
        #expect(stat(path, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(stat(dir + "/state/tictac", &st) == 0 && st.st_mode & 0o777 == 0o700)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.count == 65 && text.hasSuffix("\n"))
        var other = SplitMix64(seed: 2)
        let again = try IdentityFile.loadOrCreate(path: path, using: &other)
        #expect(again.instanceID == made.instanceID, "a restarted daemon keeps its id")
    }

    @Test func badKeyFilesAreOneLineErrors() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var rng = SplitMix64(seed: 1)
        for (contents, expected) in [("zz\n", "64 hex digits"), (String(repeating: "ab", count: 31), "64 hex digits"),
                                     (String(repeating: "g", count: 64), "64 hex digits"),
                                     (String(repeating: "a", count: 5000), "too large")] {
            let path = dir + "/bad"
            try contents.write(toFile: path, atomically: false, encoding: .utf8)
            do {
                _ = try IdentityFile.loadOrCreate(path: path, using: &rng)
                Issue.record("accepted \(contents.prefix(10))")
            } catch {
                #expect(error.description.contains(expected), "\(error)")
                #expect(!error.description.contains("\n"))
            }
        }
        #expect(throws: IdentityError.self) { try IdentityFile.loadOrCreate(path: dir, using: &rng) } // a directory
        #expect(throws: IdentityError.self) { try IdentityFile.loadOrCreate(path: dir + "/bad/x", using: &rng) }
    }
}

/// The handshake in the core, on virtual time: nothing is ready before the PROOF.
@Suite struct CoreHandshakeTests {
    static func messages(_ actions: [DaemonAction]) -> [Message] {
        actions.compactMap {
            guard case let .send(_, bytes) = $0 else { return nil }
            var d = FrameDecoder()
            d.feed(bytes)
            return try? d.next().map { try Message(frame: $0) }
        }
    }

    /// A core that accepted link 1 and got a valid HELLO from `peer` (nonce 1:1).
    private func acceptorWithHello(from peer: Identity) -> (DaemonCore, Hello, [DaemonAction]) {
        var core = DaemonCore(config: config("acceptor", seed: 61))
        core.handle(.linkOpened(1, outgoing: false, address: "198.18.0.2", port: nil), now: .zero)
        let hello = Hello(instanceID: peer.instanceID, name: try! DisplayName("dialler"), capabilities: [.tictactoe],
                          publicKey: peer.publicKey, nonce: ID128(high: 1, low: 1))
        core.handle(.frame(1, Message.hello(hello).frame()), now: .zero)
        let actions = core.pollActions() // before the core is copied out
        return (core, hello, actions)
    }

    @Test func theAcceptorWaitsForTheDiallersProof() throws {
        let peer = RawClient.identity(seed: 5)
        var (core, _, actions) = acceptorWithHello(from: peer)
        let sent = Self.messages(actions)
        guard case let .hello(ours)? = sent.first else { Issue.record("no HELLO: \(sent)"); return }
        #expect(!sent.contains { $0.kind == .proof }, "no signature for a peer that has not proven its id")
        #expect(core.peers.isEmpty)
        let proof = try #require(peer.proof(version: 1, ourNonce: ID128(high: 1, low: 1), peer: ours.instanceID,
                                            peerNonce: ours.nonce))
        core.handle(.frame(1, Message.proof(signature: proof).frame()), now: .zero)
        actions = core.pollActions()
        let reply = Self.messages(actions)
        guard case let .proof(signature)? = reply.first else { Issue.record("no PROOF: \(reply)"); return }
        let peerHello = Hello(instanceID: ours.instanceID, name: ours.name, capabilities: ours.capabilities,
                              publicKey: ours.publicKey, nonce: ours.nonce)
        #expect(peer.verifyProof(signature, version: 1, peer: peerHello, ourNonce: ID128(high: 1, low: 1)))
        #expect(actions.contains { if case .event(.peerFound) = $0 { true } else { false } })
        #expect(core.peers.map(\.id) == [peer.instanceID])
    }

    @Test func nothingButProofBeforeTheLinkIsReady() throws {
        var (core, _, _) = acceptorWithHello(from: RawClient.identity(seed: 5))
        core.handle(.frame(1, Message.invite(Invite(gameID: ID128(high: 3, low: 3))).frame()), now: .zero)
        let actions = core.pollActions()
        #expect(Self.messages(actions).contains { if case let .error(code, _) = $0 { code == ErrorCode.unexpectedMessage.rawValue } else { false } })
        #expect(!actions.contains { if case .event(.invited) = $0 { true } else { false } })
    }

    @Test func theHandshakeTimeoutCoversTheProof() throws {
        var (core, _, _) = acceptorWithHello(from: RawClient.identity(seed: 5))
        #expect(core.pollTimeout() == .zero + .seconds(5))
        core.handleTimeout(now: .zero + .seconds(2))
        #expect(!Self.messages(core.pollActions()).contains { $0.kind == .ping }, "no PING before the link is ready")
        core.handleTimeout(now: .zero + .seconds(5))
        let actions = core.pollActions()
        #expect(Self.messages(actions).contains { if case let .error(code, _) = $0 { code == ErrorCode.timeout.rawValue } else { false } })
        #expect(actions.contains { if case .close(1, _) = $0 { true } else { false } })
    }

    @Test func theDiallerProvesAsSoonAsItHasTheHello() throws {
        var core = DaemonCore(config: config("dialler", seed: 62))
        core.handle(.linkOpened(1, outgoing: true, address: "198.18.0.2", port: 5000), now: .zero)
        guard case let .hello(ours)? = Self.messages(core.pollActions()).first else { Issue.record("no HELLO"); return }
        let peer = RawClient.identity(seed: 6)
        let peerNonce = ID128(high: 2, low: 2)
        let hello = Hello(instanceID: peer.instanceID, name: try DisplayName("acceptor"), capabilities: [],
                          publicKey: peer.publicKey, nonce: peerNonce)
        core.handle(.frame(1, Message.hello(hello).frame()), now: .zero)
        let actions = core.pollActions()
        guard case let .proof(signature)? = Self.messages(actions).first else { Issue.record("no PROOF"); return }
        #expect(peer.verifyProof(signature, version: 1, peer: ours, ourNonce: peerNonce))
        #expect(core.peers.isEmpty, "ready only once the acceptor's PROOF verifies")
    }
}
