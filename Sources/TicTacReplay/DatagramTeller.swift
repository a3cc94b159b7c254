import TicTacJSON
import TicTacWire

/// Tells one UDP datagram: discovery and field messages (Protocol.md §6, §7, §11), and what is
/// not ours but no fault (mDNS, the original SphereNet packet) as "other".
enum DatagramTeller {
    /// The mDNS port (RFC 6762): DNS-SD traffic, not tictac frames.
    static let mdnsPort: UInt16 = 5353

    static func tell(_ d: Capture.Datagram, _ add: Narrator.Add) {
        let from = d.source.description
        if d.source.port == mdnsPort || d.destination.port == mdnsPort {
            return add(d.packet, d.time, "other", [("from", .string(from)), ("what", .string("mdns"))],
                       "mDNS datagram from \(from) (DNS-SD), not tictac", .other)
        }
        if LegacySphere.looksLegacy(d.payload) { return legacy(d, add) }
        let message: Message
        do {
            message = try Message(frame: try Frame.decodeDatagram(d.payload))
        } catch {
            return add(d.packet, d.time, "bad-datagram", [("from", .string(from)), ("reason", .string("\(error)"))],
                       "datagram from \(from) does not decode: \(error)", .abnormal)
        }
        // A signed ANNOUNCE or GOODBYE (version 2) carries its key, a timestamp and a signature.
        let signed = (try? PresenceSeal.read(d.payload)).flatMap { $0 } != nil
        let seal = signed ? ", signed" : ""
        switch message {
        case let .announce(a):
            add(d.packet, d.time, "announce", [("from", .string(from)), ("id", .string(a.instanceID.description)),
                                                ("name", .string(a.name.value)), ("port", .int(Int(a.tcpPort))),
                                                ("state", .int(Int(a.state))), ("signed", .bool(signed))],
                "ANNOUNCE from \(from): \(a.name.value) (\(a.instanceID.description.prefix(8))\(seal)) listens on TCP \(a.tcpPort)", .normal)
        case let .query(id):
            add(d.packet, d.time, "query", [("from", .string(from)), ("id", .string(id.description))],
                "QUERY from \(from) (\(id.description.prefix(8)))", .normal)
        case let .goodbye(id):
            add(d.packet, d.time, "goodbye", [("from", .string(from)), ("id", .string(id.description)), ("signed", .bool(signed))],
                "GOODBYE from \(from) (\(id.description.prefix(8))\(seal))", .normal)
        case let .sphere(s):
            add(d.packet, d.time, "sphere", [("from", .string(from)), ("id", .string(s.instanceID.description)), ("name", .string(s.name.value)),
                                              ("sequence", .int(Int(s.sequence))), ("x", .int(Int(s.x))), ("y", .int(Int(s.y)))],
                "SPHERE from \(from): \(s.name.value) (\(s.instanceID.description.prefix(8))) at (\(s.x), \(s.y)), "
                    + "colour \(hex(s.red, s.green, s.blue)), sequence \(s.sequence)", .normal)
        case let .fieldLeave(id, sequence):
            add(d.packet, d.time, "field-leave", [("from", .string(from)), ("id", .string(id.description)), ("sequence", .int(Int(sequence)))],
                "FIELD_LEAVE from \(from) (\(id.description.prefix(8))), sequence \(sequence)", .normal)
        default:
            add(d.packet, d.time, "misplaced", [("from", .string(from)), ("type", .string("\(message.kind)"))],
                "\(message.kind) from \(from) belongs in a TCP stream, not a datagram", .abnormal)
        }
    }

    /// The original SphereNet packet (Protocol.md §11): not our frame, and no fault.
    private static func legacy(_ d: Capture.Datagram, _ add: Narrator.Add) {
        let from = d.source.description
        do {
            let s = try LegacySphere(datagram: d.payload)
            add(d.packet, d.time, "other", [("from", .string(from)), ("what", .string("spherenet")), ("x", .int(Int(s.x))), ("y", .int(Int(s.y)))],
                "original SphereNet position from \(from): (\(s.x), \(s.y)), colour \(hex(s.red, s.green, s.blue))", .other)
        } catch .unknownType {
            // The original ignores other types (room to grow): so do we, and it is no fault.
            add(d.packet, d.time, "other", [("from", .string(from)), ("what", .string("spherenet"))],
                "original SphereNet packet of another type from \(from), not told", .other)
        } catch {
            add(d.packet, d.time, "bad-datagram", [("from", .string(from)), ("reason", .string("\(error)"))],
                "SpHn datagram from \(from) is not an original SphereNet packet: \(error)", .abnormal)
        }
    }

    private static func hex(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> String {
        "#" + [r, g, b].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
