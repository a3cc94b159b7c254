/// The original SphereNet packet (Protocol.md §11, "The original packet"): 19 packed bytes,
/// integers big-endian, no identity. Decoded so the original app's traffic shows up in the field;
/// a receiver keys such a sphere by the datagram's source address and port, as the original did.
///
///     offset size field
///     0      4    magic 'SpHn' = 53 70 48 6E
///     4      4    type 'posn' = 70 6F 73 6E
///     8      4    x, i32
///     12     4    y, i32
///     16     3    red, green, blue
public struct LegacySphere: Sendable, Equatable {
    public static let magic: [UInt8] = Array("SpHn".utf8)
    public static let positionType: [UInt8] = Array("posn".utf8)
    public static let length = 19

    public var x: Int32
    public var y: Int32
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(x: Int32, y: Int32, red: UInt8, green: UInt8, blue: UInt8) {
        self.x = x
        self.y = y
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Why a datagram is not an original position packet.
    public enum DecodeError: Error, Sendable, Equatable {
        /// Not exactly 19 bytes.
        case length(Int)
        /// Does not start with 'SpHn'.
        case magic
        /// Another type than 'posn' (the original ignores those: forward compatibility).
        case unknownType
    }

    /// True when `bytes` start with the original magic: such a datagram is for this decoder,
    /// not for the TTAC frame decoder.
    public static func looksLegacy(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0..<4].elementsEqual(magic)
    }

    /// Decodes with the original's checks, in its order: exact length, magic, type.
    public init(datagram bytes: [UInt8]) throws(DecodeError) {
        guard bytes.count == Self.length else { throw .length(bytes.count) }
        guard bytes[0..<4].elementsEqual(Self.magic) else { throw .magic }
        guard bytes[4..<8].elementsEqual(Self.positionType) else { throw .unknownType }
        var r = ByteReader(bytes[8...])
        do {
            x = try r.read()
            y = try r.read()
            red = try r.read()
            green = try r.read()
            blue = try r.read()
        } catch {
            throw .length(bytes.count) // cannot happen: the length was checked above
        }
    }

    /// The packet's 19 bytes (to test against the original, or to talk to it).
    public var bytes: [UInt8] {
        var w = ByteWriter(capacity: Self.length)
        w.write(Self.magic)
        w.write(Self.positionType)
        w.write(x)
        w.write(y)
        w.write(red)
        w.write(green)
        w.write(blue)
        return w.bytes
    }
}
