/// The signature of a signed ANNOUNCE or GOODBYE (Protocol.md §6 Discovery, §7 "Signed
/// presence"): three fields after the version-1 ones, which a version-1 receiver skips (§3).
/// Tag 10 is the sender's Ed25519 public key (its instance id is that key's hash, §4), tag 11 a
/// timestamp (milliseconds since the Unix epoch, strictly increasing per sender), tag 12 the
/// signature. The signature is the datagram's last field and covers `label` followed by every
/// byte of the datagram before that field (header, with its length counting the signature,
/// and all other fields), so nothing in it can be changed or added without breaking it.
///
/// This type only writes and reads the fields; signing and checking need the key library and
/// live with the discovery core.
public struct PresenceSeal: Sendable, Equatable {
    public static let keyTag: UInt8 = 10
    public static let timestampTag: UInt8 = 11
    public static let signatureTag: UInt8 = 12
    /// Domain separation: a signature made for this is no other message's (the handshake's).
    public static let label: [UInt8] = Array("tictac-presence-v2".utf8)
    public static let keyLength = 32
    public static let signatureLength = 64
    /// The signature field, tag and length included: the datagram's last bytes.
    public static let signatureFieldLength = 3 + signatureLength
    /// What the three fields add to a datagram.
    public static let fieldsLength = 3 + keyLength + 3 + 8 + signatureFieldLength

    public var publicKey: [UInt8]
    public var timestamp: UInt64
    public var signature: [UInt8]

    public init(publicKey: [UInt8], timestamp: UInt64, signature: [UInt8]) {
        self.publicKey = publicKey
        self.timestamp = timestamp
        self.signature = signature
    }

    /// `message` (an ANNOUNCE or GOODBYE) as a version-`version` datagram with the key, the
    /// timestamp and the signature `sign` makes of the bytes it covers; nil if `sign` fails.
    public static func seal(_ message: Message, version: UInt8, publicKey: [UInt8], timestamp: UInt64,
                            sign: ([UInt8]) -> [UInt8]?) -> [UInt8]? {
        var f = FieldWriter()
        f.raw(keyTag, publicKey)
        f.int(timestampTag, timestamp)
        f.raw(signatureTag, [UInt8](repeating: 0, count: signatureLength))
        // The header's length counts the signature field that follows the signed bytes.
        var bytes = Frame(version: version, type: message.kind.rawValue, payload: message.payload + f.bytes).bytes
        bytes.removeLast(signatureFieldLength)
        guard let signature = sign(label + bytes), signature.count == signatureLength else { return nil }
        return bytes + [signatureTag, 0, UInt8(signatureLength)] + signature
    }

    /// The bytes a datagram's signature covers (`label` and all but its last field).
    public static func signedBytes(of datagram: [UInt8]) -> [UInt8] {
        label + datagram.dropLast(signatureFieldLength)
    }

    /// The seal of a datagram already decoded as a valid message: nil when it carries none of
    /// the three fields (an unsigned, version-1 datagram). A datagram with only some of them,
    /// one of the wrong length, or a signature that is not its last field is `malformed`.
    public static func read(_ datagram: [UInt8]) throws(WireError) -> PresenceSeal? {
        let frame = try Frame.decodeDatagram(datagram)
        let f = try Fields(type: frame.type, payload: frame.payload)
        let present = [keyTag, timestampTag, signatureTag].filter { f.has($0) }.count
        guard present > 0 else { return nil }
        try f.check(present == 3, signatureTag, "a signed datagram needs key, timestamp and signature")
        let signature = try f.raw(signatureTag, length: signatureLength)
        try f.check(signature.endIndex == frame.payload.endIndex, signatureTag, "the signature is not the last field")
        return PresenceSeal(publicKey: Array(try f.raw(keyTag, length: keyLength)), timestamp: try f.int(timestampTag),
                            signature: Array(signature))
    }
}
