// Theory of operation
//
// A capture is read in three steps, each pure and bounds-checked (a capture file is input from
// outside: a bad one is a `CaptureError`, never a trap):
//   Pcap.swift        the classic pcap file format (tcpdump -w): header, then records;
//   Packet.swift      one record's link layer (Ethernet, Linux cooked SLL/SLL2, BSD null, raw IP),
//                     IPv4/IPv6, then TCP or UDP;
//   TCPStreams.swift  each TCP connection reassembled per direction (retransmitted, duplicated
//                     and out-of-order segments handled), so Protocol.md's frames can be decoded.

/// A capture file that cannot be read, and why (one line for the user).
public enum CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    case notPcap(String)
    case truncated(String)
    case unsupportedLinkType(UInt32)
    case corrupt(String)

    public var description: String {
        switch self {
        case let .notPcap(why): "not a pcap file: \(why)"
        case let .truncated(why): "truncated capture: \(why)"
        case let .unsupportedLinkType(t): "link type \(t) is not supported (Ethernet 1, null 0, raw IP 101, Linux cooked 113 and 276)"
        case let .corrupt(why): "corrupt capture: \(why)"
        }
    }
}

/// One captured packet: when, and the bytes as captured (possibly cut to the snap length).
public struct CapturedPacket: Sendable, Equatable {
    /// Nanoseconds since the Unix epoch.
    public var time: Int64
    public var data: [UInt8]
    /// The packet's length on the wire (more than `data.count` when the capture cut it).
    public var originalLength: Int
}

/// A classic pcap file (the format `tcpdump -w` writes): both byte orders, micro- and
/// nanosecond timestamps. pcapng is not read.
public struct PcapFile: Sendable {
    public var linkType: UInt32
    public var packets: [CapturedPacket]
    /// The file ends inside a record (a capture stopped mid-write): the records before it are
    /// read, and this says where and how it was cut.
    public var cutShort: String?

    /// The largest record we accept: a hostile length must not allocate gigabytes.
    static let maxRecord = 256 * 1024

    /// Parses a whole file; one whose last record is cut short is read up to that record.
    public init(bytes: [UInt8]) throws(CaptureError) {
        guard bytes.count >= 4 else { throw .notPcap("\(bytes.count) bytes, fewer than a magic number") }
        let magicBE = Self.u32(bytes, 0, bigEndian: true)
        let bigEndian: Bool, nanos: Bool
        switch magicBE {
        case 0xa1b2_c3d4: (bigEndian, nanos) = (true, false)
        case 0xd4c3_b2a1: (bigEndian, nanos) = (false, false)
        case 0xa1b2_3c4d: (bigEndian, nanos) = (true, true)
        case 0x4d3c_b2a1: (bigEndian, nanos) = (false, true)
        case 0x0a0d_0d0a: throw .notPcap("this is pcapng; convert it with `editcap -F pcap IN OUT`")
        default: throw .notPcap("unknown magic number \(String(magicBE, radix: 16))")
        }
        guard bytes.count >= 24 else { throw .truncated("the 24-byte file header has \(bytes.count)") }
        linkType = Self.u32(bytes, 20, bigEndian: bigEndian) & 0x0fff_ffff // upper bits: FCS info
        guard Packet.supportedLinkTypes.contains(linkType) else { throw .unsupportedLinkType(linkType) }
        packets = []
        var at = 24
        while at < bytes.count {
            guard bytes.count - at >= 16 else {
                cutShort = "record \(packets.count + 1) at offset \(at): header cut after \(bytes.count - at) of 16 bytes"
                break
            }
            let seconds = Int64(Self.u32(bytes, at, bigEndian: bigEndian))
            let fraction = Int64(Self.u32(bytes, at + 4, bigEndian: bigEndian))
            let included = Int(Self.u32(bytes, at + 8, bigEndian: bigEndian))
            let original = Int(Self.u32(bytes, at + 12, bigEndian: bigEndian))
            guard included <= Self.maxRecord, included <= max(original, included) else {
                throw .corrupt("record \(packets.count + 1) at offset \(at) claims \(included) bytes")
            }
            guard fraction < (nanos ? 1_000_000_000 : 1_000_000) else {
                throw .corrupt("record \(packets.count + 1) at offset \(at): timestamp fraction \(fraction) out of range")
            }
            at += 16
            guard bytes.count - at >= included else {
                cutShort = "record \(packets.count + 1) at offset \(at - 16): \(bytes.count - at) of \(included) bytes"
                break
            }
            packets.append(CapturedPacket(time: seconds * 1_000_000_000 + fraction * (nanos ? 1 : 1000),
                                          data: Array(bytes[at..<(at + included)]), originalLength: original))
            at += included
        }
    }

    private static func u32(_ b: [UInt8], _ at: Int, bigEndian: Bool) -> UInt32 {
        let v = UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
        return bigEndian ? v : v.byteSwapped
    }
}
