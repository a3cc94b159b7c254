import TicTacWire

/// The TXT record a daemon publishes with its `_tictactoe._tcp` service (Protocol.md §10).
/// Keys: `txtvers=1`, `id=` 32 hex digits, `v=MIN-MAX`, `st=idle|playing|busy|away`, `g=ttt,field`.
public struct DNSSDTXT: Sendable, Hashable {
    /// The daemon's instance id: the key peers are merged by, and the self-filter.
    public var instanceID: ID128
    /// Protocol versions spoken (Protocol.md §4).
    public var versions: ClosedRange<UInt8>
    /// What the daemon is doing (`st`).
    public var state: PresenceState
    /// Game kinds offered: only `.tictactoe` (`ttt`) and `.field` (`field`) are published.
    public var games: Capabilities

    /// A record for our own daemon; by default this build's versions, idle, tic-tac-toe.
    public init(instanceID: ID128, versions: ClosedRange<UInt8> = ProtocolVersion.supported,
                state: PresenceState = .idle, games: Capabilities = [.tictactoe]) {
        self.instanceID = instanceID
        self.versions = versions
        self.state = state
        self.games = games
    }

    /// What an ANNOUNCE of `local` says, as a TXT record: the two agree (Protocol.md §10).
    public init(_ local: LocalPresence) {
        self.init(instanceID: local.id, versions: local.versions, state: local.state,
                  games: local.capabilities.intersection([.tictactoe, .field]))
    }

    /// The largest record a browser accepts (RFC 6763 §6.2: one that fits in a single packet).
    public static let maxRecordBytes = 1300

    /// The record as DNS-SD carries it: each `key=value` string behind its length byte.
    public func encoded() -> [UInt8] {
        var kinds: [String] = []
        if games.contains(.tictactoe) { kinds.append("ttt") }
        if games.contains(.field) { kinds.append("field") }
        var entries = ["txtvers=1", "id=\(instanceID)",
                       "v=\(versions.lowerBound)-\(versions.upperBound)", "st=\(state)"]
        if !kinds.isEmpty { entries.append("g=" + kinds.joined(separator: ",")) }
        return Self.record(entries)
    }

    /// The record of the field's `_spherenet._udp` service (Protocol.md §11): `txtvers=1`, `id=`,
    /// `v=MIN-MAX`; state and game kinds say nothing there.
    public func encodedForField() -> [UInt8] {
        Self.record(["txtvers=1", "id=\(instanceID)", "v=\(versions.lowerBound)-\(versions.upperBound)"])
    }

    private static func record(_ entries: [String]) -> [UInt8] {
        var out: [UInt8] = []
        for e in entries {
            // Every entry is short ASCII (at most 35 bytes): one past a length byte's 255 is left out.
            guard e.utf8.count <= 255 else { continue }
            out.append(UInt8(e.utf8.count))
            out += e.utf8
        }
        return out
    }

    /// Reads a record from the network. Unknown keys are skipped; of a repeated key only the
    /// first counts (RFC 6763 §6.4); keys compare case-insensitively. Protocol.md §10.
    public init(decoding record: some Collection<UInt8>) throws(DNSSDTXTError) {
        let values = try Self.keyValues(record)
        func text(_ key: String) throws(DNSSDTXTError) -> String { try Self.text(values, key) }
        guard try text("txtvers") == "1" else { throw .invalid("txtvers") }
        guard let id = ID128(hex: try text("id")) else { throw .invalid("id") }
        guard let versions = Self.parseVersionsOrOne(try text("v")) else { throw .invalid("v") }
        // `st` and `g` may grow new values in a later txtvers=1 peer: an unknown state reads as
        // busy (not invited blindly), unknown game kinds are skipped. Both read in any case.
        let state = (try? text("st")).flatMap { PresenceState(name: $0.lowercased()) } ?? .busy
        var games: Capabilities = []
        for kind in ((try? text("g")) ?? "").lowercased().split(separator: ",", omittingEmptySubsequences: true) {
            switch kind {
            case "ttt": games.insert(.tictactoe)
            case "field": games.insert(.field)
            default: continue
            }
        }
        self.init(instanceID: id, versions: versions, state: state, games: games)
    }

    /// Reads the TXT record of a `_spherenet._udp` instance (Protocol.md §11): only `id` is
    /// required; `txtvers`, when present, must be 1; `v`, when present, is `MIN-MAX` or one
    /// version. The result offers the field, idle.
    public init(decodingField record: some Collection<UInt8>) throws(DNSSDTXTError) {
        let values = try Self.keyValues(record)
        guard let id = ID128(hex: try Self.text(values, "id")) else { throw .invalid("id") }
        if values["txtvers"] != nil, try Self.text(values, "txtvers") != "1" { throw .invalid("txtvers") }
        var versions: ClosedRange<UInt8> = 1...1
        if values["v"] != nil {
            guard let r = Self.parseVersionsOrOne(try Self.text(values, "v")) else { throw .invalid("v") }
            versions = r
        }
        self.init(instanceID: id, versions: versions, state: .idle, games: [.field])
    }

    /// The record's keys (lower case) and values; nil for a key without `=`. Unknown keys, empty
    /// strings and keys with non-printable bytes are skipped; of a repeated key the first counts.
    private static func keyValues(_ record: some Collection<UInt8>) throws(DNSSDTXTError) -> [String: [UInt8]?] {
        let bytes = Array(record)
        guard bytes.count <= maxRecordBytes else { throw .tooLong(bytes.count) }
        var values: [String: [UInt8]?] = [:]
        var i = 0
        while i < bytes.count {
            let n = Int(bytes[i])
            i += 1
            guard n <= bytes.count - i else { throw .truncated }
            let entry = bytes[i..<i + n]
            i += n
            if entry.isEmpty { continue } // an empty string: RFC 6763 §6.1's empty record
            let eq = entry.firstIndex(of: UInt8(ascii: "="))
            let keyBytes = entry[entry.startIndex..<(eq ?? entry.endIndex)]
            guard !keyBytes.isEmpty, keyBytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { continue }
            let key = String(decoding: keyBytes, as: UTF8.self).lowercased()
            if values[key] != nil { continue } // first occurrence wins
            values[key] = eq.map { Array(entry[entry.index(after: $0)...]) } ?? .some(nil)
        }
        return values
    }

    /// A key's value as UTF-8 text: `.missing` when absent, `.invalid` without `=` or not UTF-8.
    private static func text(_ values: [String: [UInt8]?], _ key: String) throws(DNSSDTXTError) -> String {
        guard let v = values[key] else { throw .missing(key) }
        guard let v, let s = String(validating: v, as: UTF8.self) else { throw .invalid(key) }
        return s
    }

    /// `MIN-MAX`, or one version `N` read as `N-N` (both services, Protocol.md §10, §11).
    static func parseVersionsOrOne(_ s: String) -> ClosedRange<UInt8>? {
        parseVersions(s) ?? (s.contains("-") ? nil : parseVersions("\(s)-\(s)"))
    }

    /// A record as Avahi 0.8's dns_sd library hands it over, put back in wire order: Avahi keeps
    /// a record's strings as a list built by prepending, so its library gives them reversed, and
    /// "the first of a repeated key" (RFC 6763 §6.4) must be read in the order they were sent.
    /// A record it cannot split (a length byte past the end) is returned as it came.
    public static func avahiWireOrder(_ record: [UInt8]) -> [UInt8] {
        var strings: [ArraySlice<UInt8>] = []
        var i = 0
        while i < record.count {
            let n = Int(record[i])
            guard n <= record.count - i - 1 else { return record }
            strings.append(record[i..<(i + 1 + n)])
            i += 1 + n
        }
        return strings.reversed().flatMap { $0 }
    }

    /// `MIN-MAX`: two decimals 1...255 of at most three digits each, MIN <= MAX.
    static func parseVersions(_ s: String) -> ClosedRange<UInt8>? {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        func number(_ p: Substring) -> UInt8? {
            guard (1...3).contains(p.utf8.count), p.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  let n = UInt8(p), n >= 1 else { return nil }
            return n
        }
        guard let lo = number(parts[0]), let hi = number(parts[1]), lo <= hi else { return nil }
        return lo...hi
    }
}

/// Why a TXT record does not describe a peer.
public enum DNSSDTXTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Longer than `DNSSDTXT.maxRecordBytes`.
    case tooLong(Int)
    /// A length byte runs past the end of the record.
    case truncated
    /// A required key is absent.
    case missing(String)
    /// A required key has no value or a value out of its syntax or range.
    case invalid(String)

    public var description: String {
        switch self {
        case let .tooLong(n): "TXT record of \(n) bytes (at most \(DNSSDTXT.maxRecordBytes))"
        case .truncated: "TXT record truncated"
        case let .missing(k): "TXT key \(k) missing"
        case let .invalid(k): "TXT key \(k) invalid"
        }
    }
}
