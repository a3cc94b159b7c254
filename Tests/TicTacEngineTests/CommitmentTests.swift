import TicTacCrypto
import Foundation
import Testing
import TicTacEngine
import TicTacWire

@Suite struct CommitmentTests {
    /// The `sha256=` blocks of Protocol.md §8: 20-byte secrets (roll, then nonce) and the first-move
    /// input; `blake2b=` blocks the same for a quick roll (BLAKE2b-256).
    @Test func protocolCommitmentVectors() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Protocol.md").standardized
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var checked = 0
        var i = 0
        while i < lines.count {
            defer { i += 1 }
            guard lines[i].hasPrefix("```hex "),
                  let attr = lines[i].split(separator: " ").first(where: { $0.hasPrefix("sha256=") || $0.hasPrefix("blake2b=") })
            else { continue }
            let quick = attr.hasPrefix("blake2b=")
            var hex = ""
            i += 1
            while i < lines.count, !lines[i].hasPrefix("```") {
                hex += (lines[i].split(separator: "#", omittingEmptySubsequences: false).first ?? "").filter(\.isHexDigit)
                i += 1
            }
            let bytes = stride(from: 0, to: hex.count, by: 2).map { o -> UInt8 in
                let s = hex.index(hex.startIndex, offsetBy: o)
                return UInt8(hex[s..<hex.index(s, offsetBy: 2)], radix: 16) ?? 0
            }
            let expected = String(attr.drop { $0 != "=" }.dropFirst())
            let made = bytes.withUnsafeBytes { input in
                withUnsafeTemporaryAllocation(byteCount: 32, alignment: 1) { d in
                    RollHash.digest(input, quick: quick, into: d)
                    return UnsafeRawBufferPointer(d).map { String(format: "%02x", $0) }.joined()
                }
            }
            #expect(made == expected, "\(lines[i])")
            // A secret (roll || nonce): the engine's commitment is that same hash.
            guard bytes.count == 20 else { checked += 1; continue }
            let roll = bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let nonce = try #require(ID128(hex: bytes[4...].map { String(format: "%02x", $0) }.joined()))
            #expect(Commitment.secret(roll: roll, nonce: nonce) == bytes)
            #expect(Commitment.make(roll: roll, nonce: nonce, quick: quick).map { String(format: "%02x", $0) }.joined() == expected)
            #expect(!Commitment.verify(Commitment.make(roll: roll, nonce: nonce, quick: quick), roll: roll &+ 1, nonce: nonce, quick: quick))
            checked += 1
        }
        #expect(checked >= 6)
    }
}
