import Foundation
import Testing
@testable import TicTacWire

/// Reads every ```hex block of Protocol.md and checks the codec against it, so the spec and
/// the code cannot drift:
/// - `name=N`: encoding the message named N gives exactly these bytes, and decoding them gives N.
/// - `name=N decodes=M`: these bytes decode to message M (extensions an old decoder must skip).
/// - `name=N error=CODE`: decoding these bytes fails with that error code.
@Suite struct ProtocolVectorTests {
    static let alice = ID128(high: 0x0011_2233_4455_6677, low: 0x8899_aabb_ccdd_eeff)
    /// The instance id of RFC 8032's first test key (Protocol.md §4; derived in the daemon's tests).
    static let keyID = ID128(high: 0x4619_6bb5_e841_777d, low: 0xba09_7735_0dcc_63e4)
    static let publicKey = hexBytes("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    static let helloNonce = ID128(high: 0xa0a1_a2a3_a4a5_a6a7, low: 0xa8a9_aaab_acad_aeaf)
    static let signature = hexBytes("""
        e8d58e0825e42f17e99257077e70c8bbd44a1dd634e598f38d95544c67196e1c\
        a9e8cac74f8020eebd7ce85b65bb90ca0400e5d1b2088525d5b510467a858205
        """)
    static let game = ID128(high: 0xfedc_ba98_7654_3210, low: 0x0123_4567_89ab_cdef)
    static let nonce = ID128(high: 0x0f0e_0d0c_0b0a_0908, low: 0x0706_0504_0302_0100)
    /// SHA-256 of roll 123456 and `nonce` (checked against Protocol.md §8 in the engine tests).
    static let commitment: [UInt8] = hexBytes("4fb596b577c070b5500bd5359c865b0e18daa94237fb564f306bbc1ba56349bf")

    /// The messages Protocol.md shows, by vector name.
    static let messages: [String: Message] = {
        let name = try! DisplayName("alice") // a literal: cannot fail
        return [
            "hello": .hello(Hello(minVersion: 1, maxVersion: 1, instanceID: keyID, name: name,
                                  capabilities: [.tictactoe, .field], publicKey: publicKey, nonce: helloNonce)),
            "proof": .proof(signature: signature),
            "error": .error(code: ErrorCode.illegalMove.rawValue, message: "cell 5 is already taken"),
            "ping": .ping(nonce: 0x0102_0304_0506_0708),
            "pong": .pong(nonce: 0x0102_0304_0506_0708),
            "leave": .leave,
            "invite": .invite(Invite(gameID: game, rows: 3, cols: 3, k: 3)),
            "accept": .accept(gameID: game),
            "decline": .decline(gameID: game, reason: .busy),
            "cancel": .cancel(gameID: game),
            "reset": .reset,
            "roll-commit": .rollCommit(commitment: commitment),
            "roll-commit-clock": .rollCommit(commitment: commitment, moveTime: 120),
            "roll": .roll(value: 123_456, nonce: nonce),
            "roll-ack": .rollAck(value: 123_456),
            "move": .move(cell: 4),
            "resign": .resign,
            "time-up": .timeUp,
            "announce": .announce(Announce(instanceID: alice, name: name, tcpPort: 49152,
                                           capabilities: [.tictactoe, .field], fieldPort: 49153, state: 1,
                                           minVersion: 1, maxVersion: 2, intervalMillis: 2000)),
            "query": .query(from: alice),
            "goodbye": .goodbye(alice),
            "sphere": .sphere(Sphere(instanceID: alice, sequence: 1, x: 160, y: 240, red: 255, green: 128, blue: 0,
                                     name: name)),
            "field-leave": .fieldLeave(alice, sequence: 2),
        ]
    }()

    struct Vector {
        var name: String
        var attributes: [String: String]
        var bytes: [UInt8]
    }

    static func hexBytes(_ text: String) -> [UInt8] {
        let digits = text.filter(\.isHexDigit)
        var out: [UInt8] = []
        var i = digits.startIndex
        while i < digits.endIndex, let j = digits.index(i, offsetBy: 2, limitedBy: digits.endIndex) {
            out.append(UInt8(digits[i..<j], radix: 16) ?? 0)
            i = j
        }
        return out
    }

    static func vectors() throws -> [Vector] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Protocol.md").standardized
        let text = try String(contentsOf: url, encoding: .utf8)
        var result: [Vector] = []
        var current: Vector?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.hasPrefix("```hex ") {
                var attrs: [String: String] = [:]
                for word in line.dropFirst(7).split(separator: " ") {
                    let kv = word.split(separator: "=", maxSplits: 1)
                    attrs[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
                }
                current = Vector(name: attrs["name"] ?? "", attributes: attrs, bytes: [])
            } else if line.hasPrefix("```"), let v = current {
                result.append(v)
                current = nil
            } else if current != nil {
                // Everything after '#' on a line is a comment.
                let code = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                current?.bytes += hexBytes(String(code))
            }
        }
        return result
    }

    @Test func everyMessageHasAVectorAndEveryVectorMatches() throws {
        let vectors = try Self.vectors()
        let roundTrip = vectors.filter { $0.attributes.keys.sorted() == ["name"] }
        #expect(Set(roundTrip.map(\.name)) == Set(Self.messages.keys))
        #expect(Set(Self.messages.values.map(\.kind)) == Set(Message.Kind.allCases))
        for v in roundTrip {
            guard let m = Self.messages[v.name] else {
                Issue.record("Protocol.md vector \(v.name) has no message in the test")
                continue
            }
            #expect(m.encoded() == v.bytes, "\(v.name): codec gives \(m.encoded().map { String(format: "%02x", $0) }.joined())")
            #expect(m.frame().bytes == v.bytes, "\(v.name): through Frame")
            var d = FrameDecoder()
            d.feed(v.bytes)
            let decoded = try d.next().map { try Message(frame: $0) }
            #expect(decoded == m, "\(v.name)")
            if m.kind.isDatagram {
                #expect(try Message(datagram: v.bytes) == m, "\(v.name) as a datagram")
            }
        }
    }

    /// §4's transcript vector is what `HandshakeTranscript` builds from the ids and nonces it names.
    @Test func transcriptVector() throws {
        let v = try #require(try Self.vectors().first { $0.attributes["identity"] == "transcript" })
        let built = HandshakeTranscript.bytes(version: 1, signer: Self.keyID, signerNonce: Self.helloNonce,
                                              verifier: Self.alice, verifierNonce: Self.nonce)
        #expect(built == v.bytes)
        #expect(built.count == HandshakeTranscript.length)
        #expect(Array(built.prefix(15)) == Array("tictac-proof-v1".utf8))
    }

    @Test func extensionVectorsDecode() throws {
        let vectors = try Self.vectors().filter { $0.attributes["decodes"] != nil }
        #expect(!vectors.isEmpty)
        for v in vectors {
            let expected = v.attributes["decodes"].flatMap { Self.messages[$0] }
            #expect(expected != nil, "\(v.name) names an unknown message")
            #expect(try Message(frame: Frame.decodeDatagram(v.bytes)) == expected, "\(v.name)")
        }
    }

    @Test func errorVectorsFailWithTheirCode() throws {
        let vectors = try Self.vectors().filter { $0.attributes["error"] != nil }
        #expect(vectors.count >= 5)
        for v in vectors {
            var d = FrameDecoder()
            d.feed(v.bytes)
            let code: ErrorCode?
            do {
                let frame = try d.next()
                if let frame {
                    _ = try Message(frame: frame)
                    code = nil
                } else {
                    code = nil
                }
            } catch {
                code = error.code
            }
            #expect(code?.description == v.attributes["error"], "\(v.name)")
        }
    }
}
