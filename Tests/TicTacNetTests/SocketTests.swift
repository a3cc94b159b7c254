import Glibc
import Testing
import TicTacTime
import TicTacWire
@testable import TicTacNet

@Suite struct UDPSocketTests {
    @Test func scopedIPv6AddressesKeepTheirInterface() throws {
        let byIndex = try #require(SocketAddress(ip: "fe80::1%1", port: 5))
        #expect(byIndex.scopeID == 1 && byIndex.ip == "fe80::1%1" && byIndex.port == 5)
        let byName = try #require(SocketAddress(ip: "fe80::1%lo", port: 5))
        #expect(byName.scopeID == if_nametoindex("lo") && byName == byIndex)
        #expect(SocketAddress(ip: "fe80::1%no-such-interface", port: 5) == nil)
        #expect(SocketAddress(ip: "1.2.3.4%1", port: 5) == nil)
        #expect(SocketAddress(ip: "::1", port: 5)?.scopeID == 0)
    }

    @Test func twoSocketsShareAPortAndSeeTheSource() throws {
        let r = try Reactor()
        var gotA: [UDPSocket.Datagram] = [], gotB: [UDPSocket.Datagram] = []
        let a = try UDPSocket(reactor: r, bind: try #require(SocketAddress(ip: "127.0.0.1", port: 0))) { gotA.append($0) }
        // SO_REUSEPORT: a second daemon on this host may bind the same port.
        let b = try UDPSocket(reactor: r, bind: try #require(SocketAddress(ip: "127.0.0.1", port: a.port))) { gotB.append($0) }
        #expect(a.port == b.port)
        let sender = try UDPSocket(reactor: r, bind: try #require(SocketAddress(ip: "127.0.0.1", port: 0))) { _ in }
        let to = try #require(SocketAddress(ip: "127.0.0.1", port: a.port))
        for i in 0..<20 { #expect(sender.send([UInt8(i)], to: to) == nil) }
        let end = r.now + .seconds(2)
        while gotA.count + gotB.count < 20, r.now < end { try r.runOnce(maxWait: .milliseconds(50)) }
        #expect(gotA.count + gotB.count == 20)
        let source = (gotA + gotB).first?.source
        #expect(source?.ip == "127.0.0.1" && source?.port == sender.port)
        a.close(); b.close(); sender.close()
    }

    @Test func anOversizedDatagramIsCountedNotCutShort() throws {
        let r = try Reactor()
        var got: [UDPSocket.Datagram] = []
        let rx = try UDPSocket(reactor: r, bind: try #require(SocketAddress(ip: "127.0.0.1", port: 0)), maxDatagram: 64) { got.append($0) }
        let tx = try UDPSocket(reactor: r, bind: try #require(SocketAddress(ip: "127.0.0.1", port: 0))) { _ in }
        let to = try #require(SocketAddress(ip: "127.0.0.1", port: rx.port))
        tx.send([UInt8](repeating: 1, count: 65), to: to)
        tx.send([UInt8](repeating: 2, count: 64), to: to)
        let end = r.now + .seconds(2)
        while got.isEmpty, r.now < end { try r.runOnce(maxWait: .milliseconds(50)) }
        #expect(rx.truncatedCount == 1)
        #expect(got.map(\.bytes.count) == [64])
        rx.close(); tx.close()
    }
}

@Suite struct SocketAddressTests {
    @Test func parsesAndResolves() throws {
        #expect(try SocketAddress.resolve("127.0.0.1:80").first?.description == "127.0.0.1:80")
        #expect(try SocketAddress.resolve("[::1]:5000").first?.description == "[::1]:5000")
        #expect(try SocketAddress.resolve("localhost:7").contains { $0.port == 7 })
        for bad in ["", "host", "1.2.3.4", "1.2.3.4:0", "1.2.3.4:70000", "[::1]5000", "::1:5000", ":80"] {
            #expect(throws: AddressError.self, "\(bad)") { try SocketAddress.resolve(bad) }
        }
    }

    @Test func listenerIsDualStackAndReportsItsPort() throws {
        let r = try Reactor()
        var accepted: [SocketAddress] = []
        let l = try TCPListener(reactor: r) { fd, remote in accepted.append(remote); close(fd) }
        #expect(l.port != 0)
        for ip in ["127.0.0.1", "::1"] {
            let a = try #require(SocketAddress(ip: ip, port: l.port))
            let fd = socket(a.family == .v4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            #expect(a.withSockAddr { connect(fd, $0, $1) } == 0)
        }
        let end = r.now + .seconds(2)
        while accepted.count < 2, r.now < end { try r.runOnce(maxWait: .milliseconds(50)) }
        // An IPv4 client of the IPv6 socket shows as plain IPv4, not ::ffff:127.0.0.1.
        #expect(Set(accepted.map(\.ip)) == ["127.0.0.1", "::1"])
        l.close()
    }
}

@Suite struct TCPConnectionTests {
    @Test func aFloodingLinkGetsOneReadATurnAndAnotherLinksFrameIsNotKeptBehindIt() throws {
        // 700 frames wait on one link and one on another: one turn reads at most
        // `maxReadPerTurn` bytes of the first (the rest stays in the socket for later turns),
        // and the other link's frame is delivered in that same turn.
        let r = try Reactor()
        var servers: [TCPConnection<TestFrames>] = []
        var frames = [0, 0]
        let l = try TCPListener(reactor: r) { fd, remote in
            guard let c = try? TCPConnection(reactor: r, accepted: fd, remote: remote, decoder: TestFrames()) else { return }
            let k = servers.count
            c.onMessage = { _ in frames[k] += 1 }
            servers.append(c)
        }
        let to = try #require(SocketAddress(ip: "127.0.0.1", port: l.port))
        var clients: [Int32] = []
        defer { for c in clients { close(c) } }
        for _ in 0..<2 {
            let c = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            clients.append(c)
            #expect(to.withSockAddr { Glibc.connect(c, $0, $1) } == 0)
            let end = r.now + .seconds(2)
            while servers.count < clients.count, r.now < end { try r.runOnce(maxWait: .milliseconds(20)) }
        }
        try #require(servers.count == 2)
        let ping = Message.ping(nonce: 1).encoded()
        let flood = [UInt8]((0..<700).flatMap { _ in ping })
        #expect(flood.withUnsafeBytes { Glibc.send(clients[0], $0.baseAddress, $0.count, 0) } == flood.count)
        #expect(ping.withUnsafeBytes { Glibc.send(clients[1], $0.baseAddress, $0.count, 0) } == ping.count)
        let end = r.now + .seconds(2)
        while frames[1] == 0, r.now < end { try r.runOnce(maxWait: .milliseconds(20)) }
        #expect(frames[1] == 1)
        #expect(frames[0] < 700 && frames[0] <= TCPLimits.maxReadPerTurn / ping.count, "\(frames[0]) frames of the flood in one turn")
        // The rest comes in later turns, none lost.
        while frames[0] < 700, r.now < end + .seconds(2) { try r.runOnce(maxWait: .milliseconds(20)) }
        #expect(frames[0] == 700)
        l.close()
    }

    @Test func aClosingConnectionDropsInputInsteadOfBufferingIt() throws {
        let r = try Reactor()
        var server: TCPConnection<TestFrames>?
        var frames = 0
        let l = try TCPListener(reactor: r) { fd, remote in
            server = try? TCPConnection(reactor: r, accepted: fd, remote: remote, decoder: TestFrames())
            server?.onMessage = { _ in frames += 1 }
        }
        let to = try #require(SocketAddress(ip: "127.0.0.1", port: l.port))
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        let connected = to.withSockAddr { Glibc.connect(client, $0, $1) }
        #expect(connected == 0)
        var end = r.now + .seconds(2)
        while server == nil, r.now < end { try r.runOnce(maxWait: .milliseconds(20)) }
        let s = try #require(server)
        // The client never reads, so our goodbye cannot flush: the connection lingers, closing.
        for _ in 0..<4096 where s.queuedBytes == 0 { s.send([UInt8](repeating: 0, count: 16 * 1024)) }
        #expect(s.queuedBytes > 0)
        s.closeAfterFlush(linger: .seconds(5))
        #expect(!s.isClosed)
        // Meanwhile the client streams well-formed frames: none is decoded, none is kept.
        let ping = Message.ping(nonce: 1).encoded()
        let burst = [UInt8]((0..<200).flatMap { _ in ping })
        var sent = 0
        end = r.now + .seconds(2)
        while sent < 512 * 1024, r.now < end {
            let n = burst.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { sent += n }
            try r.runOnce(maxWait: .milliseconds(1))
        }
        #expect(sent >= 512 * 1024)
        #expect(s.bytesIn > 256 * 1024)
        #expect(frames == 0 && s.bufferedInputBytes == 0)
        s.close()
        l.close()
    }
}
