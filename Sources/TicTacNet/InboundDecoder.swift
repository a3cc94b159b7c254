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
    /// Why the stream ended, once `decode` returned false.
    var failure: Failure? { get }
    /// Takes bytes read from the peer and hands each complete message to `deliver` while it
    /// returns true; false when the bytes do not decode (`failure` says why). A Bool, not the
    /// failure: the connection's generic code would look up `Failure?`'s type at every read.
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, deliver: (Message) -> Bool) -> Bool
}
