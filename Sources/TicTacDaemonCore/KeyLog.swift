import TicTacWire

/// One version-2 link's traffic keys, as a key log holds them (Protocol.md §12, "Key log"),
/// the way TLS tools keep SSLKEYLOGFILE: whoever has the line and a capture of the link reads
/// its sealed frames. The link is named by the dialler's ephemeral key, in clear in its HELLO.
public struct LinkKeys: Sendable, Equatable {
    /// The dialler's HELLO field 8.
    public var diallerEphemeralKey: [UInt8]
    /// K_d, what the dialler seals with; and K_a, what the acceptor seals with.
    public var diallerToAcceptor: [UInt8]
    public var acceptorToDialler: [UInt8]

    public static let label = "TICTAC_V2_KEYS"

    public init(diallerEphemeralKey: [UInt8], diallerToAcceptor: [UInt8], acceptorToDialler: [UInt8]) {
        self.diallerEphemeralKey = diallerEphemeralKey
        self.diallerToAcceptor = diallerToAcceptor
        self.acceptorToDialler = acceptorToDialler
    }

    /// `TICTAC_V2_KEYS <dialler's ephemeral key> <K_d> <K_a>`, each 64 lower-case hex digits.
    public var line: String {
        [Self.label, Self.hex(diallerEphemeralKey), Self.hex(diallerToAcceptor), Self.hex(acceptorToDialler)].joined(separator: " ")
    }

    /// A line of a key log, or nil when it is not one (a comment, another label, bad hex).
    public init?(line: Substring) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 4, words[0] == Self.label,
              let e = Self.bytes(words[1]), let d = Self.bytes(words[2]), let a = Self.bytes(words[3]) else { return nil }
        self.init(diallerEphemeralKey: e, diallerToAcceptor: d, acceptorToDialler: a)
    }

    /// An opener of the frames one side sealed on this link (`fromDialler`: the dialler's).
    public func opener(fromDialler: Bool) -> LinkCipher {
        let key = fromDialler ? diallerToAcceptor : acceptorToDialler
        return LinkCipher(sealKey: key, openKey: key)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out += [digits[Int(b >> 4)], digits[Int(b & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// 64 hex digits as 32 bytes.
    static func bytes(_ text: Substring) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 64 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for i in stride(from: 0, to: 64, by: 2) {
            guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A key log file's links, by the dialler's ephemeral key (lines that are not key lines are
/// skipped and counted: a key log may be shared with other tools, as SSLKEYLOGFILE is).
public struct KeyLog: Sendable {
    public private(set) var links: [[UInt8]: LinkKeys] = [:]
    /// Lines that were not blank, not comments and not ours.
    public private(set) var skipped = 0

    public init(text: String) {
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            guard let keys = LinkKeys(line: trimmed) else {
                skipped += 1
                continue
            }
            links[keys.diallerEphemeralKey] = keys
        }
    }

    /// The keys of the link whose dialler sent `ephemeralKey`.
    public func keys(diallerEphemeralKey ephemeralKey: [UInt8]) -> LinkKeys? { links[ephemeralKey] }
}
