/// The read path of a framed TCP stream (Protocol.md §2): bytes in, in the order they arrived;
/// frames out, in order, or the one decode error that ends the stream.
///
/// TCPConnection plugs it in as its decoder, and replay feeds it captured bytes, so both read
/// a stream the same way.
public struct FrameReader: Sendable {
    private var decoder = FrameDecoder()

    public init() {}

    /// Bytes held that do not make a complete frame yet (bounded by §2).
    public var bufferedCount: Int { decoder.bufferedCount }

    /// Takes `bytes` and hands each complete frame to `deliver`, in order, while `deliver`
    /// returns true (false: the owner stopped reading, e.g. it closed the connection; the frames
    /// left stay buffered). Returns the error of bytes that do not decode: the stream cannot be
    /// resynchronised, and every later call returns it again.
    public mutating func receive(_ bytes: some Collection<UInt8>, deliver: (Frame) -> Bool) -> WireError? {
        decoder.feed(bytes)
        while true {
            do {
                guard let frame = try decoder.next() else { return nil }
                if !deliver(frame) { return nil }
            } catch {
                return error
            }
        }
    }
}
