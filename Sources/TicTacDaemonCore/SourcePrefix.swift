/// The network a source address belongs to, for sharing a daemon's links fairly (Protocol.md §5):
/// an IPv4 address's /24, an IPv6 address's /64. One host with many addresses usually has them
/// in one such prefix, so it is held to the prefix's share, not to one share per address.
public enum SourcePrefix {
    /// The prefix of `address` as text ("192.168.1" for 192.168.1.7; the first four groups of
    /// an IPv6 address, written out in full). An IPv4-mapped IPv6 address counts as its IPv4
    /// address; text that is neither is its own prefix.
    public static func of(_ address: String) -> String {
        if !address.contains(":") { return ipv4(address) ?? address }
        // A dual-stack listener's IPv4 peer, as inet_ntop writes it: read in its bytes too.
        if address.hasPrefix("::ffff:"), let v4 = dottedQuadPrefix(String(decoding: address.utf8.dropFirst(7), as: UTF8.self)) {
            return v4
        }
        let bare = address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? address // a zone
        if let mapped = bare.split(separator: ":").last, mapped.contains("."), let v4 = ipv4(String(mapped)) {
            return v4
        }
        return ipv6(bare) ?? address
    }

    private static func ipv4(_ address: String) -> String? {
        if let prefix = dottedQuadPrefix(address) { return prefix }
        let parts = address.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return nil }
        return parts.prefix(3).joined(separator: ".")
    }

    /// The usual text (four groups of one to three digits, each at most 255) read in its bytes,
    /// as every connection's is (docs/performance.md): the general reading's answer; nil sends
    /// anything else to it.
    private static func dottedQuadPrefix(_ address: String) -> String? {
        var groups = 0, digits = 0, value = 0, lastDot = 0, index = 0
        for byte in address.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, groups < 3 else { return nil }
                groups += 1
                digits = 0
                value = 0
                lastDot = index
            } else {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 3 else { return nil }
                digits += 1
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                guard value <= 255 else { return nil }
            }
            index += 1
        }
        guard groups == 3, digits > 0 else { return nil }
        return String(decoding: address.utf8.prefix(lastDot), as: UTF8.self)
    }

    private static func ipv6(_ address: String) -> String? {
        let halves = address.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }
        func groups(_ s: String) -> [UInt16]? {
            if s.isEmpty { return [] }
            let parts = s.split(separator: ":", omittingEmptySubsequences: false).map { UInt16($0, radix: 16) }
            return parts.contains(nil) ? nil : parts.compactMap { $0 }
        }
        guard let head = groups(halves[0]), let tail = halves.count == 2 ? groups(halves[1]) : [] else { return nil }
        let missing = 8 - head.count - tail.count
        guard halves.count == 2 ? missing >= 1 : missing == 0 else { return nil }
        let all = head + [UInt16](repeating: 0, count: halves.count == 2 ? missing : 0) + tail
        return all.prefix(4).map { String($0, radix: 16) }.joined(separator: ":")
    }
}
