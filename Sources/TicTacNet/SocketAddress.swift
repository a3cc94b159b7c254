import CTicTacNet
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address and port. IPv4-mapped IPv6 addresses (from a dual-stack listener)
/// are shown as plain IPv4.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable { case v4, v6 }

    /// Raw sockaddr bytes (sockaddr_in or sockaddr_in6).
    private let raw: [UInt8]

    public var family: Family { raw.count == MemoryLayout<sockaddr_in>.size ? .v4 : .v6 }

    /// Copies a sockaddr filled in by the kernel; nil for families other than IPv4/IPv6.
    public init?(storage: sockaddr_storage, length: socklen_t) {
        var s = storage
        let family = Int32(s.ss_family)
        let size: Int
        switch family {
        case AF_INET: size = MemoryLayout<sockaddr_in>.size
        case AF_INET6: size = MemoryLayout<sockaddr_in6>.size
        default: return nil
        }
        guard Int(length) >= size else { return nil }
        raw = withUnsafeBytes(of: &s) { Array($0.prefix(size)) }
    }

    /// Parses a numeric address: `1.2.3.4`, `::1`, or a scoped IPv6 address such as
    /// `fe80::1%eth0` or `fe80::1%2` (a link-local address needs its interface to be dialled).
    public init?(ip: String, port: UInt16) {
        if let percent = ip.firstIndex(of: "%") {
            let scope = String(ip[ip.index(after: percent)...])
            let index = UInt32(scope) ?? if_nametoindex(scope)
            guard index != 0, var v6 = SocketAddress(ip: String(ip[..<percent]), port: port)?.v6 else { return nil }
            v6.sin6_scope_id = index
            raw = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, ip, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            raw = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, ip, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            raw = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// Resolves `HOST:PORT` or `[V6]:PORT` (a name goes through getaddrinfo; call this before the
    /// loop starts, as it may block). Returns every address, IPv6 and IPv4.
    public static func resolve(_ text: String) throws(AddressError) -> [SocketAddress] {
        let host: Substring, portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .syntax(text) }
            portText = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            throw .syntax(text)
        }
        guard let port = UInt16(portText), port > 0, !host.isEmpty else { throw .syntax(text) }
        if let a = SocketAddress(ip: String(host), port: port) { return [a] }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(String(host), String(port), &hints, &list)
        guard rc == 0 else { throw .unresolved(String(host), String(cString: gai_strerror(rc))) }
        defer { freeaddrinfo(list) }
        var result: [SocketAddress] = []
        var p = list
        while let ai = p {
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { dst in
                dst.copyMemory(from: UnsafeRawBufferPointer(start: ai.pointee.ai_addr, count: Int(ai.pointee.ai_addrlen)))
            }
            if let a = SocketAddress(storage: storage, length: ai.pointee.ai_addrlen), !result.contains(a) {
                result.append(a)
            }
            p = ai.pointee.ai_next
        }
        guard !result.isEmpty else { throw .unresolved(String(host), "no address") }
        return result
    }

    public var port: UInt16 {
        raw.withUnsafeBytes { b in
            family == .v4 ? UInt16(bigEndian: b.load(as: sockaddr_in.self).sin_port)
                : UInt16(bigEndian: b.load(as: sockaddr_in6.self).sin6_port)
        }
    }

    /// The address without the port, e.g. `198.18.0.1` or `::1`.
    public var ip: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        raw.withUnsafeBytes { b in
            if family == .v4 {
                var a = b.load(as: sockaddr_in.self).sin_addr
                _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
            } else {
                var a = b.load(as: sockaddr_in6.self).sin6_addr
                // ::ffff:a.b.c.d is an IPv4 peer on a dual-stack socket: show it as IPv4.
                let bytes = withUnsafeBytes(of: &a) { Array($0) }
                if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                    var v4 = in_addr()
                    withUnsafeMutableBytes(of: &v4) { $0.copyBytes(from: bytes[12..<16]) }
                    _ = inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count))
                } else {
                    _ = inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
                }
            }
        }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return scopeID == 0 ? text : "\(text)%\(scopeID)"
    }

    public var description: String { ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)" }

    /// Calls `body` with a sockaddr pointer and length for bind/connect/sendto.
    public func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        // Copied into a sockaddr_storage, which is bound to its own type and aligned for every
        // sockaddr: the array's bytes are never taken for a typed sockaddr.
        var storage = sockaddr_storage()
        let length = min(raw.count, MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: raw.prefix(length)) }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }

    var domain: Int32 { family == .v4 ? AF_INET : AF_INET6 }

    /// The sockaddr_in6, for an IPv6 address.
    private var v6: sockaddr_in6? {
        guard family == .v6 else { return nil }
        var out = sockaddr_in6()
        withUnsafeMutableBytes(of: &out) { $0.copyBytes(from: raw) }
        return out
    }

    /// The interface index of a scoped (link-local) IPv6 address, 0 otherwise.
    public var scopeID: UInt32 { v6?.sin6_scope_id ?? 0 }
}

/// Why `HOST:PORT` could not be used.
public enum AddressError: Error, Sendable, Equatable, CustomStringConvertible {
    case syntax(String)
    case unresolved(String, String)

    public var description: String {
        switch self {
        case let .syntax(t): "'\(t.prefix(80))' is not HOST:PORT (use [ADDR]:PORT for IPv6; port 1-65535)"
        case let .unresolved(h, why): "cannot resolve '\(h.prefix(80))': \(why)"
        }
    }
}
