/// Error codes carried by an ERROR message (Protocol.md §5). Values are stable on the wire;
/// a receiver that does not know a code treats it as `.internalError` for display.
public enum ErrorCode: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    case malformed = 1
    case badMagic = 2
    case unsupportedVersion = 3
    case frameTooLarge = 4
    case unknownType = 5
    case unexpectedMessage = 6
    case illegalMove = 7
    case commitmentMismatch = 8
    case rollMismatch = 9
    case timeout = 10
    case busy = 11
    case internalError = 12
    case badIdentity = 13

    /// The lower-case, dash-separated name used in logs and the plain mode's JSON.
    public var description: String {
        switch self {
        case .malformed: "malformed"
        case .badMagic: "bad-magic"
        case .unsupportedVersion: "unsupported-version"
        case .frameTooLarge: "frame-too-large"
        case .unknownType: "unknown-type"
        case .unexpectedMessage: "unexpected-message"
        case .illegalMove: "illegal-move"
        case .commitmentMismatch: "commitment-mismatch"
        case .rollMismatch: "roll-mismatch"
        case .timeout: "timeout"
        case .busy: "busy"
        case .internalError: "internal-error"
        case .badIdentity: "bad-identity"
        }
    }
}

/// Everything that can be wrong with bytes from the network. Decoding never traps: any input
/// gives a frame, "need more data", or one of these.
public enum WireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The first four bytes are not "TTAC".
    case badMagic([UInt8])
    /// A version this decoder does not speak, on a frame whose layout depends on it.
    case unsupportedVersion(UInt8)
    /// The header declares a payload above the limit; nothing was allocated for it.
    case frameTooLarge(declared: UInt32, limit: Int)
    /// Fewer bytes than a field or frame needs (datagrams and payloads only; a stream just waits).
    case truncated
    /// Bytes left over after a datagram's declared payload.
    case trailingBytes(Int)
    /// A message type this version does not define.
    case unknownType(UInt8, ignorable: Bool)
    /// A TLV field appears twice.
    case duplicateField(type: UInt8, tag: UInt8)
    /// A required TLV field is absent.
    case missingField(type: UInt8, tag: UInt8)
    /// A field has the wrong length for its kind.
    case badFieldLength(type: UInt8, tag: UInt8, length: Int)
    /// A field's value is out of its documented range (a roll over 999,999, an invalid name...).
    case invalidValue(type: UInt8, tag: UInt8, reason: String)
    /// A valid message of a TCP type in a UDP datagram (Protocol.md §5).
    case wrongTransport(type: UInt8)

    /// The ERROR code a receiver sends back for this fault (Protocol.md §5).
    public var code: ErrorCode {
        switch self {
        case .badMagic: .badMagic
        case .unsupportedVersion: .unsupportedVersion
        case .frameTooLarge: .frameTooLarge
        case .unknownType: .unknownType
        case .wrongTransport: .unexpectedMessage
        case .truncated, .trailingBytes, .duplicateField, .missingField, .badFieldLength, .invalidValue:
            .malformed
        }
    }

    public var description: String {
        switch self {
        case let .badMagic(bytes):
            "bad magic \(bytes.map { String($0, radix: 16) }.joined(separator: " ")) (expected 54 54 41 43)"
        case let .unsupportedVersion(v): "unsupported protocol version \(v)"
        case let .frameTooLarge(declared, limit): "frame payload of \(declared) bytes exceeds the limit of \(limit)"
        case .truncated: "truncated frame"
        case let .trailingBytes(n): "\(n) bytes after the end of the frame"
        case let .unknownType(t, _): "unknown message type 0x\(String(t, radix: 16))"
        case let .duplicateField(t, tag): "field \(tag) repeated in message type 0x\(String(t, radix: 16))"
        case let .missingField(t, tag): "field \(tag) missing from message type 0x\(String(t, radix: 16))"
        case let .badFieldLength(t, tag, n): "field \(tag) of message type 0x\(String(t, radix: 16)) has bad length \(n)"
        case let .invalidValue(t, tag, reason): "field \(tag) of message type 0x\(String(t, radix: 16)): \(reason)"
        case let .wrongTransport(t): "message type 0x\(String(t, radix: 16)) travels on TCP, not in a datagram"
        }
    }
}
