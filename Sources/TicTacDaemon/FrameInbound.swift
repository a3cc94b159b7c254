import TicTacNet
import TicTacWire
import TicTacDaemonCore
import TicTacDiscoveryCore

/// Protocol.md §2 frames off a TCP stream: the decoder of every daemon connection.
public struct FrameInbound: InboundDecoder {
    private var reader = FrameReader()

    public init() {}

    public private(set) var failure: WireError?

    public var bufferedCount: Int { reader.bufferedCount }

    public mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, deliver: (Frame) -> Bool) -> Bool {
        failure = reader.receive(bytes, deliver: deliver)
        return failure == nil
    }
}

/// A connection that carries Protocol.md frames.
public typealias FrameConnection = TCPConnection<FrameInbound>
