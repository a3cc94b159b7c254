import Foundation
import Testing
import TicTacDiscovery
import TicTacDiscoveryCore
import TicTacWire

/// Builds a TXT record from strings, each behind its length byte (RFC 6763 §6.1).
func txtRecord(_ entries: [String]) -> [UInt8] {
    var out: [UInt8] = []
    for e in entries {
        out.append(UInt8(e.utf8.count))
        out += e.utf8
    }
    return out
}

let sampleID = ID128(high: 0x0123_4567_89ab_cdef, low: 0xfedc_ba98_7654_3210)
let sampleHex = "0123456789abcdeffedcba9876543210"

@Suite struct DNSSDTXTTests {
    @Test func encodesTheDocumentedKeysInOrder() {
        let txt = DNSSDTXT(instanceID: sampleID, versions: 1...1, state: .playing, games: [.tictactoe, .field])
        #expect(txt.encoded() == txtRecord(["txtvers=1", "id=\(sampleHex)", "v=1-1", "st=playing", "g=ttt,field"]))
        // No game kinds: no g key.
        let none = DNSSDTXT(instanceID: sampleID, versions: 1...3, state: .busy, games: [])
        #expect(none.encoded() == txtRecord(["txtvers=1", "id=\(sampleHex)", "v=1-3", "st=busy"]))
    }

    @Test(arguments: [
        DNSSDTXT(instanceID: sampleID),
        DNSSDTXT(instanceID: ID128(high: 0, low: 1), versions: 2...255, state: .busy, games: [.field]),
        DNSSDTXT(instanceID: ID128(high: .max, low: .max), versions: 1...1, state: .playing, games: []),
    ])
    func roundTrip(_ txt: DNSSDTXT) throws {
        #expect(try DNSSDTXT(decoding: txt.encoded()) == txt)
    }

    @Test func unknownKeysAreIgnoredAndKeysAreCaseInsensitive() throws {
        let record = txtRecord(["TXTVERS=1", "colour=blue", "ID=\(sampleHex.uppercased())", "flag", "V=1-2",
                                "ST=idle", "G=ttt,chess,,field"])
        let txt = try DNSSDTXT(decoding: record)
        #expect(txt == DNSSDTXT(instanceID: sampleID, versions: 1...2, state: .idle, games: [.tictactoe, .field]))
    }

    @Test func firstOfARepeatedKeyWins() throws {
        let other = String(repeating: "a", count: 32)
        let txt = try DNSSDTXT(decoding: txtRecord(["txtvers=1", "id=\(sampleHex)", "id=\(other)", "v=1-1",
                                                    "st=busy", "st=idle"]))
        #expect(txt.instanceID == sampleID)
        #expect(txt.state == .busy)
        // A repeated id whose first copy is bad is not rescued by a good second one.
        #expect(throws: DNSSDTXTError.invalid("id")) {
            try DNSSDTXT(decoding: txtRecord(["txtvers=1", "id=xyz", "id=\(sampleHex)", "v=1-1"]))
        }
    }

    @Test func unknownStateReadsAsBusyAndMissingGamesAsNone() throws {
        let txt = try DNSSDTXT(decoding: txtRecord(["txtvers=1", "id=\(sampleHex)", "v=1-1", "st=sleeping"]))
        #expect(txt.state == .busy)
        #expect(txt.games == [])
        let noState = try DNSSDTXT(decoding: txtRecord(["txtvers=1", "id=\(sampleHex)", "v=1-1"]))
        #expect(noState.state == .busy)
    }

    @Test(arguments: [
        (["txtvers=1", "v=1-1", "st=idle"], DNSSDTXTError.missing("id")),
        (["txtvers=1", "id", "v=1-1"], .invalid("id")),                             // key without '='
        (["txtvers=1", "id=", "v=1-1"], .invalid("id")),
        (["txtvers=1", "id=0123456789abcdeffedcba987654321g", "v=1-1"], .invalid("id")), // not hex
        (["txtvers=1", "id=0123456789abcdeffedcba987654321", "v=1-1"], .invalid("id")),  // 31 digits
        (["txtvers=1", "id=+123456789abcdeffedcba9876543210", "v=1-1"], .invalid("id")),
        (["txtvers=1", "id=" + String(repeating: "f", count: 250), "v=1-1"], .invalid("id")), // huge
        (["id=\(sampleHex)", "v=1-1"], .missing("txtvers")),
        (["txtvers=2", "id=\(sampleHex)", "v=1-1"], .invalid("txtvers")),
        (["txtvers=1", "id=\(sampleHex)"], .missing("v")),
        (["txtvers=1", "id=\(sampleHex)", "v=2-1"], .invalid("v")),
        (["txtvers=1", "id=\(sampleHex)", "v=0-1"], .invalid("v")),
        (["txtvers=1", "id=\(sampleHex)", "v=1-256"], .invalid("v")),
        (["txtvers=1", "id=\(sampleHex)", "v=1-"], .invalid("v")),
        (["txtvers=1", "id=\(sampleHex)", "v=1-1-1"], .invalid("v")),
        (["txtvers=1", "id=\(sampleHex)", "v=+1-1"], .invalid("v")),
        (["txtvers=1", "id=\(sampleHex)", "v=0001-1"], .invalid("v")),
        (["txtvers=1", "id=\(sampleHex)", "v=" + String(repeating: "1", count: 200)], .invalid("v")),
    ])
    func hostileRecordsAreNotPeers(_ entries: [String], _ error: DNSSDTXTError) {
        #expect(throws: error) { try DNSSDTXT(decoding: txtRecord(entries)) }
    }

    @Test func malformedFramingIsRefused() {
        // A length byte that runs past the end of the record.
        var record = txtRecord(["txtvers=1", "id=\(sampleHex)", "v=1-1"])
        record.append(40)
        record += Array("st=idle".utf8)
        #expect(throws: DNSSDTXTError.truncated) { try DNSSDTXT(decoding: record) }
        // Bigger than a packet: refused before parsing.
        var huge = txtRecord(["txtvers=1", "id=\(sampleHex)", "v=1-1"])
        for _ in 0..<6 { huge += txtRecord(["pad=" + String(repeating: "x", count: 250)]) }
        #expect(throws: DNSSDTXTError.tooLong(huge.count)) { try DNSSDTXT(decoding: huge) }
        // Empty record (a single empty string) and nothing at all: no id.
        #expect(throws: DNSSDTXTError.missing("txtvers")) { try DNSSDTXT(decoding: [0]) }
        #expect(throws: DNSSDTXTError.missing("txtvers")) { try DNSSDTXT(decoding: []) }
    }

    @Test func invalidUTF8ValueIsRefused() {
        var record = txtRecord(["txtvers=1", "v=1-1"])
        let bad: [UInt8] = Array("id=".utf8) + [0xFF, 0xFE]
        record.append(UInt8(bad.count))
        record += bad
        #expect(throws: DNSSDTXTError.invalid("id")) { try DNSSDTXT(decoding: record) }
    }

    /// Protocol.md §10's example record is what the encoder writes.
    @Test func protocolExampleMatchesTheEncoder() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Protocol.md").standardized
        let text = try String(contentsOf: url, encoding: .utf8)
        let start = try #require(text.range(of: "```text name=dnssd-txt\n"))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let lines = text[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
        let id = try #require(ID128(hex: "00112233445566778899aabbccddeeff"))
        let txt = DNSSDTXT(instanceID: id, versions: 1...1, state: .idle, games: [.tictactoe, .field])
        #expect(txtRecord(lines) == txt.encoded())
        #expect(try DNSSDTXT(decoding: txtRecord(lines)) == txt)
    }
}

/// The field's `_spherenet._udp` record (Protocol.md §11): `id` required, the rest optional.
@Suite struct FieldTXTTests {
    @Test func encodesTxtversIdAndVersionsOnly() {
        let txt = DNSSDTXT(instanceID: sampleID, versions: 1...1, state: .playing, games: [.tictactoe, .field])
        #expect(txt.encodedForField() == txtRecord(["txtvers=1", "id=\(sampleHex)", "v=1-1"]))
        #expect(DNSSDService.field.encode(txt) == txt.encodedForField())
        #expect(DNSSDService.field.type == "_spherenet._udp" && DNSSDService.tictactoe.type == "_tictactoe._tcp")
    }

    @Test func anIdAloneIsAParticipantOfTheField() throws {
        let txt = try DNSSDTXT(decodingField: txtRecord(["ID=\(sampleHex.uppercased())"]))
        #expect(txt == DNSSDTXT(instanceID: sampleID, versions: 1...1, state: .idle, games: [.field]))
        // Our own record reads back; `v` may be one version; unknown keys are skipped.
        let own = DNSSDTXT(instanceID: sampleID, versions: 1...2)
        #expect(try DNSSDTXT(decodingField: own.encodedForField()).versions == 1...2)
        #expect(try DNSSDTXT(decodingField: txtRecord(["colour=red", "v=3", "id=\(sampleHex)"])).versions == 3...3)
        // §10's full record is accepted too.
        #expect(DNSSDService.field.decode(own.encoded())?.instanceID == sampleID)
    }

    @Test func withoutAValidIdOrWithBadOptionalKeysItIsNot() {
        #expect(throws: DNSSDTXTError.missing("id")) { try DNSSDTXT(decodingField: txtRecord(["txtvers=1", "v=1-1"])) }
        #expect(throws: DNSSDTXTError.invalid("id")) { try DNSSDTXT(decodingField: txtRecord(["id=\(sampleHex.dropLast())"])) }
        #expect(throws: DNSSDTXTError.invalid("id")) { try DNSSDTXT(decodingField: txtRecord(["id"])) }
        #expect(throws: DNSSDTXTError.invalid("txtvers")) {
            try DNSSDTXT(decodingField: txtRecord(["txtvers=2", "id=\(sampleHex)"]))
        }
        #expect(throws: DNSSDTXTError.invalid("v")) { try DNSSDTXT(decodingField: txtRecord(["id=\(sampleHex)", "v=0"])) }
        #expect(throws: DNSSDTXTError.invalid("v")) { try DNSSDTXT(decodingField: txtRecord(["id=\(sampleHex)", "v=2-1"])) }
        #expect(throws: DNSSDTXTError.truncated) { try DNSSDTXT(decodingField: [40, 0x69, 0x64]) }
        // The seed's app publishes no TXT at all: not a participant (it cannot be told apart).
        #expect(DNSSDService.field.decode([]) == nil)
        // And §10's stricter reader refuses a record without txtvers and v.
        #expect(DNSSDService.tictactoe.decode(txtRecord(["id=\(sampleHex)"])) == nil)
    }
}
