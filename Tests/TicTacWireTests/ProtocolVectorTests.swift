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
    /// The HELLO vector's nonce: marked as a version-2 daemon's (Protocol.md §4), and its
    /// ephemeral key (RFC 7748's Alice).
    static let markedNonce = ID128(high: 0xa0a1_a2a3_a4a5_a6a7, low: 0x5454_4143_0000_0002)
    static let ephemeralKey = hexBytes("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
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
        let ben = try! DisplayName("ben") // a literal: cannot fail
        return [
            // Every vector's fields of one kind carry different values, so two swapped tags fail.
            "hello": .hello(Hello(minVersion: 1, maxVersion: 2, instanceID: keyID, name: name, capabilities: [.tictactoe, .field],
                                  publicKey: publicKey, nonce: markedNonce, ephemeralKey: ephemeralKey)),
            "proof": .proof(signature: signature),
            "error": .error(code: ErrorCode.illegalMove.rawValue, message: "cell 5 is already taken"),
            "ping": .ping(nonce: 0x0102_0304_0506_0708),
            "pong": .pong(nonce: 0x0102_0304_0506_0708),
            "leave": .leave,
            "invite": .invite(Invite(gameID: game, rows: 3, cols: 5, k: 4)),
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
            "resume": .resume(Resume(key: game, moves: 2,
                                     digest: hexBytes("9894de2762ada4ce3fdd2e0e0fce9ef68a23f660b33d62491fe648b3a6d961b4"),
                                     last: 0, status: .ready)),
            "resume-roll": .resume(Resume(key: game, moves: 0,
                                          digest: hexBytes("1ef2d9cb5010713d7207ede848b782320a46610f12598ae72bb9211a60565705"),
                                          last: nil, status: .ready, secret: hexBytes("0001e2400f0e0d0c0b0a09080706050403020100"))),
            "resume-quick-roll": .resume(Resume(key: game, moves: 1,
                                                digest: hexBytes("44ba364397370311da548b2f873d30ce51672596b5510c7903b967813f6f0715"),
                                                last: 4, status: .ready, secret: hexBytes("0001e2400f0e0d0c0b0a09080706050403020100"))),
            "watch": .watch(Watch(.follow, opponent: alice)),
            "watch-list": .watch(Watch(.list)),
            "watching": .watching(WatchedGame(o: WatchPlayer(id: keyID, name: name), x: WatchPlayer(id: alice, name: ben),
                                              rows: 3, cols: 3, k: 3, moves: [4, 0], moveTime: 120, number: 1)),
            "watch-move": .watchMove(cell: 8, number: 3),
            "watch-end": .watchEnd(WatchEnd(winner: 1, how: .line)),
            "watch-stop": .watchStop(.full),
            "games": .games([ListedGame(opponent: WatchPlayer(id: alice, name: ben), rows: 15, cols: 15, k: 5, moves: 12)]),
            "spectators-off": .spectators(false),
            "spectators-on": .spectators(true),
            "spectators-watchers": .spectators(true, watchers: 2),
            "announce": .announce(Announce(instanceID: alice, name: name, tcpPort: 49152,
                                           capabilities: [.tictactoe, .field], fieldPort: 49153, state: 2,
                                           minVersion: 1, maxVersion: 3, intervalMillis: 2000)),
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

    /// A vector's fault: the test fails on it instead of reading the block some other way.
    struct VectorError: Error, CustomStringConvertible {
        var description: String
    }

    /// The attributes a ```hex block may carry, and who checks each.
    static let knownAttributes: Set<String> = [
        "name",     // every block: its name
        "decodes",  // here: decodes to the named message
        "error",    // here: refused with that code
        "identity", // IdentityTests (and transcriptVector here)
        "sha256",   // CommitmentTests
        "blake2b",  // CommitmentTests (a quick roll's hashes)
        "legacy",   // FieldWireTests
        "session",  // AuthenticatedStreamTests (version 2's key schedule and sealed frame)
    ]

    /// Bytes from hex text: groups of hex digits separated by white space. Anything else, or a
    /// group with an odd number of digits, is an error (a typo must not drop or shift a byte).
    static func strictHexBytes(_ text: some StringProtocol) throws -> [UInt8] {
        var out: [UInt8] = []
        for group in text.split(whereSeparator: \.isWhitespace) {
            guard group.allSatisfy(\.isHexDigit) else { throw VectorError(description: "not hex: \(group)") }
            guard group.count % 2 == 0 else { throw VectorError(description: "odd number of hex digits: \(group)") }
            var i = group.startIndex
            while i < group.endIndex {
                let j = group.index(i, offsetBy: 2)
                guard let byte = UInt8(group[i..<j], radix: 16) else { throw VectorError(description: "not hex: \(group)") }
                out.append(byte)
                i = j
            }
        }
        return out
    }

    /// Hex digits of a constant in this file (a literal: no faults to report).
    static func hexBytes(_ text: String) -> [UInt8] {
        (try? strictHexBytes(text)) ?? []
    }

    static func vectors() throws -> [Vector] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Protocol.md").standardized
        return try vectors(in: String(contentsOf: url, encoding: .utf8))
    }

    /// The ```hex blocks of a Markdown text. A block with an attribute nobody checks (a typo such
    /// as `decode=`), without a name, or with a bad hex group is an error, never skipped.
    static func vectors(in text: String) throws -> [Vector] {
        var result: [Vector] = []
        var current: Vector?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.hasPrefix("```hex ") {
                var attrs: [String: String] = [:]
                for word in line.dropFirst(7).split(separator: " ") {
                    let kv = word.split(separator: "=", maxSplits: 1)
                    guard kv.count == 2, knownAttributes.contains(String(kv[0])), attrs[String(kv[0])] == nil else {
                        throw VectorError(description: "bad attribute \(word) in: \(line)")
                    }
                    attrs[String(kv[0])] = String(kv[1])
                }
                guard let name = attrs["name"], attrs.count <= 2 else {
                    throw VectorError(description: "a block needs a name and at most one other attribute: \(line)")
                }
                current = Vector(name: name, attributes: attrs, bytes: [])
            } else if line.hasPrefix("```"), let v = current {
                result.append(v)
                current = nil
            } else if current != nil {
                // Everything after '#' on a line is a comment.
                let code = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                do {
                    current?.bytes += try strictHexBytes(code)
                } catch {
                    throw VectorError(description: "\(current?.name ?? ""): \(error)")
                }
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
            // A HELLO's header carries its sender's highest version (Protocol.md §4).
            // RESUME's and the spectators' vectors are version 2's (§13, §14), the others version 1's.
            let version = if case let .hello(h) = m { h.maxVersion } else { UInt8(m.kind.isSpectating || m.kind == .resume ? 2 : 1) }
            let encoded = m.encoded(version: version)
            #expect(encoded == v.bytes, "\(v.name): codec gives \(encoded.map { String(format: "%02x", $0) }.joined())")
            #expect(m.frame(version: version).bytes == v.bytes, "\(v.name): through Frame")
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
            #expect(v.attributes["decodes"] != v.name, "\(v.name) names itself")
            #expect(expected != nil, "\(v.name) names an unknown message")
            #expect(try Message(frame: Frame.decodeDatagram(v.bytes)) == expected, "\(v.name)")
        }
    }

    @Test func errorVectorsFailWithTheirCode() throws {
        let vectors = try Self.vectors().filter { $0.attributes["error"] != nil }
        #expect(vectors.count >= 5)
        for v in vectors {
            #expect(ErrorCode.allCases.contains { $0.description == v.attributes["error"] }, "\(v.name): no such code")
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

    /// The parser's own faults fail the test: a misspelled attribute, a block with no name, an odd
    /// hex digit, a stray character.
    @Test(arguments: [
        "```hex name=move decode=move\n54544143\n```",
        "```hex decodes=move\n54544143\n```",
        "```hex name=move error\n54544143\n```",
        "```hex name=move\n54544143 0\n```",
        "```hex name=move\n5454414\n```",
        "```hex name=move\n0x54544143\n```",
        "```hex name=move error=malformed decodes=move\n54544143\n```",
    ])
    func parserRefusesFaultyBlocks(_ text: String) {
        #expect(throws: VectorError.self) { try Self.vectors(in: text) }
    }

    @Test func parserReadsAGoodBlock() throws {
        let v = try Self.vectors(in: "```hex name=x error=malformed\n5454 4143 # a comment\n01\n```")
        #expect(v.count == 1)
        #expect(v.first?.bytes == [0x54, 0x54, 0x41, 0x43, 0x01])
        #expect(v.first?.attributes["error"] == "malformed")
    }
}
