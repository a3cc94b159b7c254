import TicTacNet
import TicTacWire

/// Protocol.md §2 frames, for connections under test (the network layer knows no protocol).
struct TestFrames: InboundDecoder {
    private var reader = FrameReader()

    private(set) var failure: WireError?

    var bufferedCount: Int { reader.bufferedCount }

    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, deliver: (Frame) -> Bool) -> Bool {
        failure = reader.receive(bytes, deliver: deliver)
        return failure == nil
    }
}
