#if canImport(Glibc)
import Glibc
#endif
import TicTacNet

/// Broadcast discovery's sockets (Protocol.md §7): the discovery port on IPv4, and on IPv6 where
/// the host has it; each send goes to every suitable interface, read afresh each time. The
/// presence service holds one unless broadcast is off.
final class BroadcastSocket {
    /// Called when sending starts or stops having a LAN interface (loopback aside).
    var onNetworkChange: (_ available: Bool, _ interfaces: [String]) -> Void = { _, _ in }

    private let port: UInt16
    private let only: Set<String>
    private var socket: UDPSocket?
    /// IPv6: the same datagrams to ff02::1 (all nodes) on each interface; nil where IPv6 is off.
    private var socket6: UDPSocket?
    private var lanInterfaces: [String]?

    /// Binds `port` (shared with other daemons on this host); `interfaces` restricts sending to
    /// those names (empty: every suitable one, and loopback). `received` gets every datagram.
    init(reactor: Reactor, port: UInt16, interfaces: [String],
         received: @escaping (UDPSocket.Datagram) -> Void) throws(NetError) {
        self.port = port
        only = Set(interfaces)
        guard let any = SocketAddress(ip: "0.0.0.0", port: port) else { throw NetError("discovery address", errno: EINVAL) }
        socket = try UDPSocket(reactor: reactor, bind: any, maxDatagram: 2048, onDatagram: received)
        // Linux delivers ff02::1 to every socket bound to the port (IPV6_MULTICAST_ALL is on by
        // default), so no group is joined. No IPv6 on this host: IPv4 alone.
        if let any6 = SocketAddress(ip: "::", port: port) {
            socket6 = try? UDPSocket(reactor: reactor, bind: any6, maxDatagram: 2048, onDatagram: received)
        }
    }

    /// Sends to each suitable interface's directed broadcast address and to loopback's
    /// (Protocol.md §7). A failed send (an interface going down) waits for the next one.
    func send(_ bytes: [UInt8]) {
        guard let socket else { return }
        let all = NetworkInterfaces.current()
        let lan = all.filter { $0.carriesBroadcast && !$0.isLoopback && (only.isEmpty || only.contains($0.name)) }
        var targets: [String] = []
        for i in lan { if let b = i.broadcast, !targets.contains(b) { targets.append(b) } }
        if only.isEmpty || only.contains("lo") { targets.append("127.255.255.255") }
        for t in targets {
            if let address = SocketAddress(ip: t, port: port) { socket.send(bytes, to: address) }
        }
        if let socket6 {
            // ff02::1 on each interface that is up, multicast-capable and has an IPv6 address.
            var names: [String] = []
            for i in all where i.family == .v6 && i.isUp && i.isMulticast && !i.isLoopback && !i.isPointToPoint
                && (only.isEmpty || only.contains(i.name)) && !names.contains(i.name) {
                names.append(i.name)
                if let address = SocketAddress(ip: "ff02::1%\(i.name)", port: port) { socket6.send(bytes, to: address) }
            }
        }
        let names = lan.map(\.name)
        if names != lanInterfaces { // the first send, and every change after it
            lanInterfaces = names
            onNetworkChange(!names.isEmpty, names)
        }
    }

    /// Closes both sockets. Idempotent.
    func close() {
        socket?.close()
        socket = nil
        socket6?.close()
        socket6 = nil
    }

    deinit { close() }
}
