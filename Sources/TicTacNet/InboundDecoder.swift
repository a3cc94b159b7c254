/// What a TCPConnection does with the bytes it reads (SwiftNIO's channel and decoder split):
/// the connection moves bytes, the decoder plugged into it turns them into messages of the
/// owner's protocol. The network layer knows no protocol of its own.
public protocol InboundDecoder {
    /// What the decoder yields (Protocol.md §2's frames, for the daemon).
    associatedtype Message
    /// Why bytes do not decode: the stream ends with it.
    associatedtype Failure: Error
    /// Bytes held that do not make a complete message yet.
    var bufferedCount: Int { get }
    /// Takes bytes read from the peer and hands each complete message to `deliver` while it
    /// returns true; returns the error that ends the stream, if the bytes do not decode.
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, deliver: (Message) -> Bool) -> Failure?
}
