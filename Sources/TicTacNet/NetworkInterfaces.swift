#if canImport(Glibc)
import Glibc
#endif

/// One address of a network interface, as getifaddrs(3) reports it.
public struct InterfaceAddress: Sendable, Equatable {
    /// The interface's name (`eth0`, `lo`).
    public var name: String
    public var isUp: Bool
    public var isLoopback: Bool
    public var isBroadcast: Bool
    public var isPointToPoint: Bool
    public var isMulticast: Bool
    /// The address, e.g. `198.18.0.1` or `fe80::1`.
    public var address: String
    public var family: SocketAddress.Family
    /// The directed broadcast address (IPv4 interfaces with IFF_BROADCAST only).
    public var broadcast: String?

    /// True for an interface broadcast discovery is sent on (Protocol.md §7): up,
    /// broadcast-capable, not point-to-point, with an IPv4 broadcast address.
    public var carriesBroadcast: Bool {
        isUp && isBroadcast && !isPointToPoint && family == .v4 && broadcast != nil
    }
}

public enum NetworkInterfaces {
    /// The name of every interface of this host (up or down, with addresses or not), sorted:
    /// what `--interface` may name (if_nameindex(3)). Empty if the list cannot be read.
    public static func names() -> [String] {
        guard let list = if_nameindex() else { return [] }
        defer { if_freenameindex(list) }
        var out: [String] = []
        var p = list
        while p.pointee.if_index != 0, let name = p.pointee.if_name {
            out.append(String(cString: name))
            p += 1
        }
        return out.sorted()
    }

    /// Every IPv4 and IPv6 address of every interface, read afresh (interfaces come and go).
    /// An error of getifaddrs gives an empty list: no network is a state to report, not a fault.
    public static func current() -> [InterfaceAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var out: [InterfaceAddress] = []
        var p = list
        while let ifa = p {
            p = ifa.pointee.ifa_next
            guard let address = ifa.pointee.ifa_addr.flatMap(socketAddress) else { continue }
            let flags = Int32(bitPattern: ifa.pointee.ifa_flags)
            let isBroadcast = flags & Int32(IFF_BROADCAST) != 0
            // ifa_broadaddr and ifa_dstaddr share storage (a union): read it only with IFF_BROADCAST.
            var broadcast: String?
            if isBroadcast, address.family == .v4, let b = ifa.pointee.ifa_ifu.ifu_broadaddr.flatMap(socketAddress) {
                broadcast = b.ip
            }
            out.append(InterfaceAddress(
                name: String(cString: ifa.pointee.ifa_name),
                isUp: flags & Int32(IFF_UP) != 0 && flags & Int32(IFF_RUNNING) != 0,
                isLoopback: flags & Int32(IFF_LOOPBACK) != 0,
                isBroadcast: isBroadcast,
                isPointToPoint: flags & Int32(IFF_POINTOPOINT) != 0,
                isMulticast: flags & Int32(IFF_MULTICAST) != 0,
                address: address.ip, family: address.family, broadcast: broadcast))
        }
        return out
    }

    private static func socketAddress(_ sa: UnsafeMutablePointer<sockaddr>) -> SocketAddress? {
        let family = Int32(sa.pointee.sa_family)
        let size: Int
        switch family {
        case AF_INET: size = MemoryLayout<sockaddr_in>.size
        case AF_INET6: size = MemoryLayout<sockaddr_in6>.size
        default: return nil
        }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: size)) }
        return SocketAddress(storage: storage, length: socklen_t(size))
    }
}
