import Foundation
import Glibc
import Testing

/// `tictac peers` sends nothing with --no-broadcast (it used to broadcast a QUERY all the same).
@Suite(.serialized) struct PeersCommandTests {
    /// Runs `tictac peers ARGS` to its end, with a UDP socket on the discovery port `port`
    /// (this test's namespace: broadcast reaches 127.255.255.255); returns the datagrams it got.
    func datagramsDuring(_ args: [String], port: UInt16) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: in_port_t(port.bigEndian),
                               sin_addr: in_addr(s_addr: 0), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0, "bind UDP \(port): errno \(errno)")
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let p = Process()
        p.executableURL = CLITests.binary
        p.arguments = ["peers", "--no-dnssd", "--discovery-port", "\(port)", "--timeout", "0.3"] + args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 2048)
        while recv(fd, &buffer, buffer.count, 0) > 0 { count += 1 }
        return count
    }

    @Test func noBroadcastSendsNoQuery() throws {
        #expect(try datagramsDuring([], port: 51931) > 0, "without --no-broadcast its QUERY is heard")
        #expect(try datagramsDuring(["--no-broadcast"], port: 51932) == 0)
    }
}
