import Glibc
import Testing
import TicTacDaemon
import TicTacDaemonCore
import TicTacEngine
import TicTacNet
import TicTacTestSupport
import TicTacWire
import TicTacTime

/// A test peer on a raw loopback socket: writes any bytes, reads whatever the daemon sends.
/// Blocking connect (the kernel completes it from the listener's backlog), nonblocking reads.
final class RawClient {
    let fd: Int32
    var received: [UInt8] = []
    private var decoder = FrameDecoder()
    private(set) var frames: [Frame] = []
    private(set) var closedByPeer = false
    /// The daemon's side reset the connection (ECONNRESET) instead of closing it.
    private(set) var resetByPeer = false

    /// `receiveBuffer` sets SO_RCVBUF before connecting, so the window is small from the start
    /// (shrinking it on a connection that had already advertised a large window stalled that
    /// connection for seconds here: no data reached the daemon while our sends still succeeded).
    /// `source` binds the client's end to that loopback address (a source other than 127.0.0.1).
    init(port: UInt16, receiveBuffer: Int32? = nil, source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0, let address = SocketAddress(ip: "127.0.0.1", port: port) else { throw NetError.last("socket") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            guard let local = SocketAddress(ip: source, port: 0),
                  local.withSockAddr({ Glibc.bind(fd, $0, $1) }) == 0 else { throw NetError.last("bind") }
        }
        let rc = address.withSockAddr { Glibc.connect(fd, $0, $1) }
        guard rc == 0 else { throw NetError.last("connect") }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(fd) }

    func write(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func send(_ message: Message, version: UInt8 = 1) { write(message.encoded(version: version)) }

    /// Reads what is there; decodes frames as they complete.
    func poll() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                received += buffer[0..<n]
                decoder.feed(buffer[0..<n])
                while let f = try? decoder.next() { frames.append(f) }
            } else {
                if n == 0 { closedByPeer = true }
                if n < 0, errno == ECONNRESET { resetByPeer = true }
                return
            }
        }
    }

    var messages: [Message] { frames.compactMap { try? Message(frame: $0) } }

    /// The code of the first ERROR received, if any.
    var errorCode: ErrorCode? {
        for case let .error(code, _) in messages { return ErrorCode(rawValue: code) }
        return nil
    }

    /// The key this client proves, set by `hello` (seeded: the same each run).
    private(set) var identity = RawClient.identity(seed: 99)
    /// The nonce of our HELLO.
    private(set) var nonce = ID128(high: 0, low: 0)

    /// A key from a seed, as a daemon's identity.
    static func identity(seed: UInt64) -> Identity {
        var rng = SplitMix64(seed: seed)
        return Identity(using: &rng)
    }

    /// A HELLO as a daemon with the key from `seed` would send it.
    static func helloMessage(name: String, seed: UInt64, nonce: ID128) -> Hello {
        let key = identity(seed: seed)
        return Hello(instanceID: key.instanceID, name: try! DisplayName(name), capabilities: [.tictactoe],
                     publicKey: key.publicKey, nonce: nonce)
    }

    /// Sends HELLO with the key from `seed` and a fresh nonce (Protocol.md §4).
    func hello(name: String = "raw", seed: UInt64 = 99) {
        identity = Self.identity(seed: seed)
        nonce = ID128(high: seed, low: UInt64(fd))
        send(.hello(Self.helloMessage(name: name, seed: seed, nonce: nonce)))
    }

    /// The daemon's HELLO, once it is in (call `poll` first).
    var peerHello: Hello? {
        for case let .hello(h) in messages { return h }
        return nil
    }

    /// Whether the daemon sent its PROOF.
    var receivedProof: [UInt8]? {
        for case let .proof(signature) in messages { return signature }
        return nil
    }

    /// Our PROOF for the daemon's HELLO: we dialled, so we prove first (Protocol.md §4).
    func proof(for peer: Hello) -> Message {
        .proof(signature: identity.proof(version: 1, ourNonce: nonce, peer: peer.instanceID, peerNonce: peer.nonce) ?? [])
    }

    /// The whole handshake as a dialling daemon does it: HELLO, the daemon's HELLO, our PROOF, the
    /// daemon's PROOF (checked). Returns whether the link is ready.
    func shakeHands(_ reactor: Reactor, name: String = "raw", seed: UInt64 = 99) throws -> Bool {
        hello(name: name, seed: seed)
        try #require(try run(reactor, for: .seconds(2)) { poll(); return peerHello != nil || closedByPeer })
        guard let peer = peerHello else { return false }
        send(proof(for: peer))
        try #require(try run(reactor, for: .seconds(2)) { poll(); return receivedProof != nil || closedByPeer })
        guard let signature = receivedProof else { return false }
        return identity.verifyProof(signature, version: 1, peer: peer, ourNonce: nonce)
    }
}

/// Lines of a daemon's operator log (Daemon.onLog).
final class Lines {
    var lines: [String] = []
}
