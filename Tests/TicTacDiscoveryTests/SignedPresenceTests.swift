import Foundation
import Testing
import TicTacEngine
import TicTacDiscoveryCore
import TicTacTime
import TicTacWire

/// A key from a one-byte seed (tests only: every seed of 32 bytes is a key).
func presenceKey(_ n: UInt8) -> PresenceKey {
    guard let key = PresenceKey(privateKey: [UInt8](repeating: n, count: 32)) else { preconditionFailure("seed refused") }
    return key
}

/// A daemon that signs, its id its key's, its clock starting at `wall` ms since the epoch.
func signedCore(_ n: UInt8, _ name: String, port: UInt16 = 40000, wall: UInt64 = 1_700_000_000_000,
                config: DiscoveryConfig = DiscoveryConfig()) -> DiscoveryCore {
    let key = presenceKey(n)
    let local = LocalPresence(id: key.instanceID, name: name.display, port: port, capabilities: [.tictactoe])
    return DiscoveryCore(local: local, config: config, key: key, wallClockMillis: wall, random: SplitMix64(seed: UInt64(n)))
}

extension DiscoveryCore {
    /// The raw datagrams broadcast (the signed bytes, not re-encoded), and the events.
    mutating func drainRaw() -> (sent: [[UInt8]], events: [DiscoveryEvent]) {
        var sent: [[UInt8]] = [], events: [DiscoveryEvent] = []
        for action in pollActions() {
            switch action {
            case let .broadcast(bytes): sent.append(bytes)
            case let .event(e): events.append(e)
            }
        }
        return (sent, events)
    }
}

/// An unsigned (version-1) ANNOUNCE claiming `id`.
func forgedAnnounce(_ id: ID128, name: String = "mallory", port: UInt16 = 6666, state: UInt8 = 0,
                    interval: UInt16 = 2000) -> [UInt8] {
    Message.announce(Announce(instanceID: id, name: name.display, tcpPort: port, capabilities: [.tictactoe],
                              state: state, intervalMillis: interval)).encoded()
}

@Suite struct SignedPresenceTests {
    @Test func aSignedAnnounceShowsThePeerSigned() throws {
        var a = core(1, "ann"), b = signedCore(2, "ben")
        b.handle(.start, now: at(0))
        let sent = b.drainRaw().sent
        // A version-1 decoder reads it as an ANNOUNCE (it skips the seal's fields).
        guard case let .announce(an)? = try? Message(datagram: sent[0]) else { Issue.record("not an ANNOUNCE"); return }
        #expect(an.instanceID == b.local.id)
        let seal = try #require(try PresenceSeal.read(sent[0]))
        #expect(seal.publicKey == presenceKey(2).publicKey && seal.timestamp == 1_700_000_000_000)
        #expect(PresenceKey.verify(sent[0], seal: seal, id: b.local.id))
        a.handle(.datagram(sent[0], from: "198.18.0.2"), now: at(1))
        #expect(a.peer(b.local.id)?.signed == true && a.counters.verified == 1)
    }

    @Test func anUnsignedOrBadlySignedAnnounceNeverChangesASignedPeer() throws {
        var a = core(1, "ann"), b = signedCore(2, "ben")
        b.handle(.start, now: at(0))
        let sent = b.drainRaw().sent
        a.handle(.datagram(sent[0], from: "198.18.0.2"), now: at(1))
        _ = a.drain()
        let shown = try #require(a.peer(b.local.id))
        // Another host copies the id, unsigned: dropped.
        a.handle(.datagram(forgedAnnounce(b.local.id, state: 2), from: "198.18.0.66"), now: at(10))
        // Signed by another key (its own), claiming the id: the key's hash is not the id.
        let other = presenceKey(9)
        let forged = try #require(other.seal(.announce(Announce(instanceID: b.local.id, name: "mallory".display, tcpPort: 6666,
                                                                   capabilities: [.tictactoe])), version: 1, timestamp: .max))
        a.handle(.datagram(forged, from: "198.18.0.66"), now: at(20))
        // One byte of the real one changed (its port): the signature no longer holds.
        var tampered = sent[0]
        if let i = tampered.indices.first(where: { tampered[$0] == 3 && tampered[$0 + 1] == 0 && tampered[$0 + 2] == 2 }) {
            tampered[i + 4] ^= 1
        }
        a.handle(.datagram(tampered, from: "198.18.0.66"), now: at(30))
        #expect(a.drain().events.isEmpty)
        #expect(a.peer(b.local.id) == shown)
        #expect(a.counters.unsigned == 1 && a.counters.badSignature == 2)
    }

    @Test func aReplayedAnnounceIsRefusedAndAnExactCopyOnlyAddsItsAddress() throws {
        var a = core(1, "ann"), b = signedCore(2, "ben")
        b.handle(.start, now: at(0))
        let first = b.drainRaw().sent[0]
        a.handle(.datagram(first, from: "198.18.0.2"), now: at(1))
        b.handleTimeout(now: try #require(b.pollTimeout()))
        let second = b.drainRaw().sent[0]
        a.handle(.datagram(second, from: "198.18.0.2"), now: at(2100))
        a.handle(.datagram(first, from: "198.18.0.2"), now: at(2200))
        #expect(a.counters.replayed == 1)
        // The same datagram heard on a second interface: no second verification.
        a.handle(.datagram(second, from: "fe80::2%2"), now: at(2300))
        #expect(a.counters.verified == 3 && a.peer(b.local.id)?.addresses.count == 2)
    }

    @Test func onlyASignedGoodbyeRemovesASignedPeerAndARestartShowsAtOnce() throws {
        var a = core(1, "ann"), b = signedCore(2, "ben")
        b.handle(.start, now: at(0))
        let hello = b.drainRaw().sent[0]
        a.handle(.datagram(hello, from: "198.18.0.2"), now: at(1))
        _ = a.drain()
        // An unsigned GOODBYE, even from the peer's own (spoofed) address: dropped.
        a.handle(.datagram(Message.goodbye(b.local.id).encoded(), from: "198.18.0.2"), now: at(10))
        #expect(a.drain().events.isEmpty && a.counters.unsigned == 1)
        b.handle(.stop, now: at(500))
        let bye = b.drainRaw().sent
        #expect(bye.count == 1)
        a.handle(.datagram(bye[0], from: "198.18.0.77"), now: at(510)) // signed: from anywhere
        guard case .lost? = a.drain().events.first else { Issue.record("not removed"); return }
        // Its last ANNOUNCE replayed: older than the GOODBYE, refused.
        a.handle(.datagram(hello, from: "198.18.0.2"), now: at(600))
        #expect(a.peers.isEmpty && a.counters.replayed == 1)
        // The same identity restarts 1 s later (its wall clock moved on): shown at once.
        var again = signedCore(2, "ben", wall: 1_700_000_001_000)
        again.handle(.start, now: at(1000))
        a.handle(.datagram(again.drainRaw().sent[0], from: "198.18.0.2"), now: at(1001))
        guard case .found? = a.drain().events.first else { Issue.record("restart not shown"); return }
    }

    @Test func aVersion1PeerIsAHintUntilASignedAnnounceTakesOver() throws {
        var a = core(1, "ann"), b = signedCore(2, "ben")
        a.handle(.datagram(forgedAnnounce(b.local.id, name: "old"), from: "198.18.0.66"), now: at(0))
        #expect(a.peer(b.local.id)?.signed == false && a.peer(b.local.id)?.name == "old")
        b.handle(.start, now: at(0))
        a.handle(.datagram(b.drainRaw().sent[0], from: "198.18.0.2"), now: at(10))
        let p = try #require(a.peer(b.local.id))
        // The signed view's fields, and only its address: the hint's address was anyone's.
        #expect(p.signed && p.name == "ben" && p.port == 40000 && p.addresses == ["198.18.0.2"])
    }

    @Test func theLargestSignedAnnounceIs245Bytes() throws {
        var b = signedCore(2, String(repeating: "n", count: 64))
        b.handle(.start, now: at(0))
        #expect(b.drainRaw().sent.first?.count == 245) // Protocol.md §6, §7
    }

    @Test func badSignaturesAreCheckedAtAPerSourceRate() throws {
        var a = core(1, "ann")
        let other = presenceKey(9)
        for i in 0..<200 {
            let victim = ID128(high: 7, low: UInt64(i))
            let forged = try #require(other.seal(.announce(Announce(instanceID: victim, name: "m".display, tcpPort: 1,
                                                                       capabilities: [.tictactoe])), version: 1, timestamp: 1))
            a.handle(.datagram(forged, from: "198.18.0.66"), now: at(Int64(i) * 5)) // 200/s for 1 s
        }
        // The discovery rate (20/s, 40 burst) lets some 60 through; verification 5/s, burst 10.
        #expect(a.counters.verified <= 15 && a.counters.verifyLimited > 0 && a.peers.isEmpty)
    }
}

/// Protocol.md §6's signed GOODBYE and ANNOUNCE vectors: our signer makes exactly their bytes,
/// and they verify.
@Suite struct SignedPresenceVectorTests {
    /// The bytes of the ```hex block marked `identity=<marker>`.
    static func vector(_ marker: String = "signed-goodbye") throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Protocol.md").standardized
        let text = try String(contentsOf: url, encoding: .utf8)
        var bytes: [UInt8] = [], inside = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```hex ") && line.contains("identity=\(marker)") { inside = true; continue }
            if inside && line.hasPrefix("```") { break }
            guard inside else { continue }
            let code = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            for group in code.split(whereSeparator: \.isWhitespace) {
                var i = group.startIndex
                while i < group.endIndex {
                    let j = group.index(i, offsetBy: 2)
                    bytes.append(try #require(UInt8(group[i..<j], radix: 16)))
                    i = j
                }
            }
        }
        return bytes
    }

    /// RFC 8032's first test key.
    static func rfc8032Key() throws -> PresenceKey {
        let rfc8032 = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
        var seed: [UInt8] = []
        var i = rfc8032.startIndex
        while i < rfc8032.endIndex {
            let j = rfc8032.index(i, offsetBy: 2)
            seed.append(try #require(UInt8(rfc8032[i..<j], radix: 16)))
            i = j
        }
        return try #require(PresenceKey(privateKey: seed))
    }

    @Test func theSignedGoodbyeVectorIsOurs() throws {
        let key = try Self.rfc8032Key()
        let v = try Self.vector()
        #expect(v.count == 144)
        #expect(key.seal(.goodbye(key.instanceID), version: 1, timestamp: 1_700_000_000_000) == v)
        let seal = try #require(try PresenceSeal.read(v))
        #expect(PresenceKey.verify(v, seal: seal, id: key.instanceID))
        #expect(try Message(datagram: v) == .goodbye(key.instanceID))
    }

    /// The ANNOUNCE of an engine bot: field 13 (the program) comes before the seal and is signed.
    @Test func theSignedAnnounceWithAProgramIsOurs() throws {
        let key = try Self.rfc8032Key()
        let v = try Self.vector("signed-announce")
        let announce = Announce(instanceID: key.instanceID, name: "gomoku".display, tcpPort: 49152,
                                capabilities: [.tictactoe, .bot], fieldPort: 0, state: 0, minVersion: 1, maxVersion: 2,
                                intervalMillis: 2000, program: "pbrain-tiny 1.0".display)
        #expect(v.count == 205)
        #expect(key.seal(.announce(announce), version: 1, timestamp: 1_700_000_000_000) == v)
        let seal = try #require(try PresenceSeal.read(v))
        #expect(PresenceKey.verify(v, seal: seal, id: key.instanceID))
        #expect(try Message(datagram: v) == .announce(announce))
        // The program is signed: a changed byte of it breaks the signature.
        var altered = v
        let at = try #require((0..<(v.count - 15)).first { Array(v[$0..<($0 + 15)]) == Array("pbrain-tiny 1.0".utf8) })
        altered[at] ^= 0x20
        #expect(!PresenceKey.verify(altered, seal: seal, id: key.instanceID))
    }
}
