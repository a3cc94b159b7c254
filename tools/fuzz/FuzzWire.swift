// libFuzzer target for the wire codec (Sources/TicTacWire). Built by tools/fuzz/run, without
// SwiftPM, in the same module as the codec sources:
//
//     swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name TicTacWire \
//         Sources/TicTacWire/*.swift tools/fuzz/FuzzWire.swift -o tools/fuzz/.out/fuzz-wire
//
// so the codec's types are used directly, without `import`.
//
// Each input is used whole, three ways:
//   (a) as one UDP datagram: `Message(datagram:)`;
//   (b) as a TCP stream: fed to a FrameDecoder all at once, and to a second one in chunks whose
//       sizes come from the input (byte 0 picks the schedule, below), draining `next()` after
//       every chunk and decoding each frame with `Message(frame:)`;
//   (c) every message that decodes is re-encoded (`encoded(version:)`, with the version of the
//       frame it came in) and decoded again; the result must equal it and encode to the same bytes.
//
// Decoding may throw (any WireError is a valid outcome) but must never trap. A broken invariant
// is a codec bug: `bug(_:)` prints it and calls abort(), which libFuzzer reports as a crash and
// saves the input under tools/fuzz/.out/. Invariants checked:
//   - a re-encoded message decodes to an equal message, canonically (c);
//   - any chunking gives the same frames, in the same order, and the same error, as one feed;
//   - a failed decoder stays failed (next() throws the same error again);
//   - after next() returns nil, fewer than a header plus one maximal payload is buffered;
//   - a datagram that decodes is a datagram kind, and is the only frame the stream decoder finds.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let datagram = fuzzDatagram(input)
    fuzzOriginalSphere(input)
    let wholeStream = decodeStream(input, chunkSizes: nil)
    let chunkedStream = decodeStream(input, chunkSizes: ChunkSchedule(input))
    if chunkedStream != wholeStream {
        bug("chunked stream decoding differs from one feed:\n  one feed: \(wholeStream)\n  chunked:  \(chunkedStream)")
    }
    for frame in wholeStream.frames {
        fuzzFrame(frame)
    }
    if let message = datagram {
        // A valid datagram is exactly one complete frame: the stream decoder must see just it.
        guard wholeStream.frames.count == 1, wholeStream.failure == nil, wholeStream.leftover == 0,
              (try? Message(frame: wholeStream.frames[0])) == message else {
            bug("datagram decodes to \(message) but the stream decoder gives \(wholeStream)")
        }
    }
    return 0
}

/// Reports a broken codec invariant and stops: the only deliberate trap of the target.
func bug(_ what: String) -> Never {
    fputs("FuzzWire: codec bug: \(what)\n", stderr)
    abort()
}

// MARK: (a) datagrams

func fuzzDatagram(_ input: [UInt8]) -> Message? {
    let message: Message
    do {
        message = try Message(datagram: input)
    } catch {
        _ = error.code // every WireError maps to a code
        return nil
    }
    guard message.kind.isDatagram else { bug("Message(datagram:) accepted the TCP-only \(message)") }
    checkRoundTrip(message, version: input[4])
    return message
}

/// The original SphereNet packet (Protocol.md §11): never traps; what decodes re-encodes to the
/// same 19 bytes.
func fuzzOriginalSphere(_ input: [UInt8]) {
    guard let p = try? LegacySphere(datagram: input) else { return }
    if p.bytes != input { bug("original packet \(p) re-encodes to other bytes") }
}

// MARK: (b) the stream decoder

/// Everything a FrameDecoder makes of a whole input.
struct StreamOutcome: Equatable, CustomStringConvertible {
    var frames: [Frame] = []
    var failure: WireError?
    /// `bufferedCount` after the last `next()` (0 when the decoder failed).
    var leftover = 0

    var description: String {
        "\(frames.count) frames [\(frames.map { "type \($0.type) v\($0.version) \($0.payload.count)B" }.joined(separator: ", "))]"
            + (failure.map { ", then \($0)" } ?? ", \(leftover) bytes left")
    }
}

/// Chunk sizes taken from the input itself. Byte 0: bits 0..3 give a base size 1...16; bit 4
/// set varies the size per chunk (from successive input bytes); bit 5 set multiplies it by 256,
/// so large frames are also fed in big reads.
struct ChunkSchedule {
    let input: [UInt8]
    let base: Int
    let varying: Bool
    let scale: Int
    var index = 0

    init(_ input: [UInt8]) {
        let b = input.first ?? 0
        self.input = input
        base = Int(b & 0x0f) + 1
        varying = b & 0x10 != 0
        scale = b & 0x20 != 0 ? 256 : 1
    }

    mutating func next() -> Int {
        defer { index += 1 }
        guard varying, !input.isEmpty else { return base * scale }
        return (Int(input[index % input.count] & 0x0f) + 1) * scale
    }
}

/// Feeds `input` to a FrameDecoder (at once, or in chunks) and drains `next()` after each feed,
/// stopping at the first error.
func decodeStream(_ input: [UInt8], chunkSizes: ChunkSchedule?) -> StreamOutcome {
    var decoder = FrameDecoder()
    var outcome = StreamOutcome()
    var schedule = chunkSizes
    var offset = 0
    repeat {
        let count = min(schedule?.next() ?? input.count, input.count - offset)
        decoder.feed(input[offset..<(offset + count)])
        offset += count
        do {
            while let frame = try decoder.next() {
                outcome.frames.append(frame)
            }
        } catch {
            outcome.failure = error
            outcome.leftover = 0
            // After an error the decoder stays failed, with the same error.
            do {
                _ = try decoder.next()
                bug("FrameDecoder recovered after \(error)")
            } catch let again {
                if again != error { bug("FrameDecoder failed with \(error), then with \(again)") }
            }
            return outcome
        }
        // nil means "need more data": what is held is an incomplete frame.
        if decoder.bufferedCount >= Frame.headerLength + Frame.maxPayloadLength {
            bug("FrameDecoder holds \(decoder.bufferedCount) bytes without a complete frame")
        }
        outcome.leftover = decoder.bufferedCount
    } while offset < input.count
    return outcome
}

// MARK: (c) messages and round trips

func fuzzFrame(_ frame: Frame) {
    // The frame layer itself round-trips (flags included).
    guard let again = try? Frame.decodeDatagram(frame.bytes), again == frame else {
        bug("frame \(frame) does not survive bytes -> decodeDatagram")
    }
    let message: Message
    do {
        message = try Message(frame: frame)
    } catch {
        _ = error.code
        return
    }
    checkRoundTrip(message, version: frame.version)
}

/// Re-encodes a decoded message with the version it came in and decodes it again, as a frame
/// from a stream and (for datagram kinds) as a datagram.
func checkRoundTrip(_ message: Message, version: UInt8) {
    let bytes = message.encoded(version: version)
    let decoded: Message
    do {
        decoded = try Message(frame: Frame.decodeDatagram(bytes))
    } catch {
        bug("\(message), re-encoded as \(hex(bytes)), does not decode: \(error)")
    }
    guard decoded == message else {
        bug("\(message), re-encoded as \(hex(bytes)), decodes to \(decoded)")
    }
    guard decoded.encoded(version: version) == bytes else {
        bug("\(message) encodes to \(hex(bytes)) but its decoding encodes to \(hex(decoded.encoded(version: version)))")
    }
    var decoder = FrameDecoder()
    decoder.feed(bytes)
    guard let frame = try? decoder.next(), decoder.bufferedCount == 0,
          (try? Message(frame: frame)) == message else {
        bug("\(message), re-encoded as \(hex(bytes)), does not come back through FrameDecoder")
    }
    if message.kind.isDatagram {
        guard (try? Message(datagram: bytes)) == message else {
            bug("\(message), re-encoded as \(hex(bytes)), is not accepted back as a datagram")
        }
    }
}

func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
}
