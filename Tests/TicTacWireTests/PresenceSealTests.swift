import Testing
@testable import TicTacWire

/// The seal's three fields (Protocol.md §6 Discovery): written after the version-1 fields, the
/// signature last, covering the label and every byte before it; read back, or refused.
@Suite struct PresenceSealTests {
    static let id = ID128(high: 0x0011_2233_4455_6677, low: 0x8899_aabb_ccdd_eeff)
    static let key = [UInt8](repeating: 0xab, count: 32)

    /// A stand-in signer: the signature is the covered bytes' sum, repeated (no key library here).
    static func sign(_ bytes: [UInt8]) -> [UInt8]? {
        [UInt8](repeating: UInt8(truncatingIfNeeded: bytes.reduce(0) { $0 &+ Int($1) }), count: 64)
    }

    @Test func aSealedGoodbyeIsAVersion1GoodbyeWithThreeMoreFields() throws {
        var covered: [UInt8] = []
        let bytes = try #require(PresenceSeal.seal(.goodbye(Self.id), version: 1, publicKey: Self.key, timestamp: 7) {
            covered = $0
            return Self.sign($0)
        })
        #expect(try Message(datagram: bytes) == .goodbye(Self.id))
        #expect(bytes.count == Message.goodbye(Self.id).encoded().count + PresenceSeal.fieldsLength)
        let seal = try #require(try PresenceSeal.read(bytes))
        #expect(seal.publicKey == Self.key && seal.timestamp == 7 && seal.signature == Self.sign(covered))
        #expect(covered == PresenceSeal.label + bytes.dropLast(67) && PresenceSeal.signedBytes(of: bytes) == covered)
        // The header's length counts the signature field.
        #expect(Int(bytes[11]) == bytes.count - 12)
        #expect(try PresenceSeal.read(Message.goodbye(Self.id).encoded()) == nil)
    }

    @Test func aPartialSealOrASignatureNotLastIsMalformed() throws {
        let plain = Message.goodbye(Self.id).encoded()
        func datagram(_ extra: [UInt8]) -> [UInt8] {
            var b = plain + extra
            b[11] = UInt8(b.count - 12)
            return b
        }
        let key: [UInt8] = [10, 0, 32] + Self.key, stamp: [UInt8] = [11, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1]
        let signature: [UInt8] = [12, 0, 64] + [UInt8](repeating: 1, count: 64)
        #expect(throws: WireError.self) { try PresenceSeal.read(datagram(key + stamp)) }
        #expect(throws: WireError.self) { try PresenceSeal.read(datagram(signature + key + stamp)) }
        #expect(try PresenceSeal.read(datagram(stamp + key + signature)) != nil, "order is free, but the signature ends it")
        #expect(throws: WireError.self) { try PresenceSeal.read(datagram(key + stamp + [12, 0, 2, 1, 1])) }
    }
}
