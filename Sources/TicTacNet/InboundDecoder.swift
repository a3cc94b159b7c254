import TicTacWire

/// What a TCPConnection does with the bytes it reads (SwiftNIO's channel and decoder split):
/// the connection moves bytes, the decoder plugged into it turns them into frames.
public protocol InboundDecoder {
    /// Bytes held that do not make a complete frame yet.
    var bufferedCount: Int { get }
    /// Takes bytes read from the peer and hands each complete frame to `deliver` while it
    /// returns true; returns the error that ends the stream, if the bytes do not decode.
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, deliver: (Frame) -> Bool) -> WireError?
}

/// Protocol.md §2 frames: the decoder every connection uses unless told otherwise.
extension FrameReader: InboundDecoder {
    public mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, deliver: (Frame) -> Bool) -> WireError? {
        receive(bytes, deliver: deliver)
    }
}
