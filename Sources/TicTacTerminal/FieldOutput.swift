import TicTacFieldCore
import TicTacJSON
import TicTacTime
import TicTacWire

/// What a field front shows.
public enum FieldUpdate: Sendable, Equatable {
    /// We are on the field: our sphere, and the UDP port the field listens on.
    case ready(FieldSphere, port: UInt16)
    /// Our own sphere after a move or a colour change.
    case local(FieldSphere)
    case event(FieldEvent)
    case error(code: String, message: String)
    case notice(String)
    case help(String)
    /// The field's datagram counters (the `stats` command, and once at a clean exit).
    case stats(FieldCounters)
}

/// Plain-mode lines for the field: JSON objects (`--json`) or readable text.
///
///     {"event":"sphere","id":..,"name":..,"x":..,"y":..,"color":[r,g,b]}
///     {"event":"sphere-left","id":..,"reason":"left"|"timeout"}
public struct FieldFormatter: Sendable {
    public let json: Bool

    public init(json: Bool) { self.json = json }

    /// The line for a sphere's state (joined, changed, or ours).
    public func sphere(_ s: FieldSphere) -> String {
        if json {
            return JSON.object([("event", .string("sphere")), ("id", .string(s.key.description)), ("name", .string(s.name)),
                                ("x", .int(Int(s.x))), ("y", .int(Int(s.y))),
                                ("color", .array([.int(Int(s.color.red)), .int(Int(s.color.green)), .int(Int(s.color.blue))]))]).serialized
        }
        return OutputFormatter.escaped("sphere \(s.name) at \(s.x),\(s.y) color \(s.color) (\(Self.shortKey(s.key)))")
    }

    public func left(_ key: SphereKey, name: String, reason: SphereLeftReason) -> String {
        if json {
            return JSON.object([("event", .string("sphere-left")), ("id", .string(key.description)),
                                ("name", .string(name)), ("reason", .string(reason.rawValue))]).serialized
        }
        return OutputFormatter.escaped("sphere-left \(name): \(reason.rawValue) (\(Self.shortKey(key)))")
    }

    /// A sphere's key at the end of a text line: an id's first 8 hex digits (as the lobby's
    /// lines give them), an original app's address and port in full.
    static func shortKey(_ key: SphereKey) -> String {
        switch key {
        case let .peer(id): String(id.description.prefix(8))
        case let .original(endpoint): "from \(endpoint)"
        }
    }

    /// Our sphere on joining; `event` names the line (`ready`, or `field` in tictac play).
    public func ready(_ s: FieldSphere, port: UInt16, event: String = "ready") -> String {
        if json {
            return JSON.object([("event", .string(event)), ("id", .string(s.key.description)), ("name", .string(s.name)),
                                ("port", .int(Int(port))), ("x", .int(Int(s.x))), ("y", .int(Int(s.y))),
                                ("color", .array([.int(Int(s.color.red)), .int(Int(s.color.green)), .int(Int(s.color.blue))]))]).serialized
        }
        return OutputFormatter.escaped("\(event) \(s.name) at \(s.x),\(s.y) color \(s.color), field port \(port) (\(Self.shortKey(s.key)))")
    }

    /// The counters: what was received and sent, and every drop by its Protocol.md §11 name.
    ///
    ///     {"event":"field-stats","received":..,"sent":..,"dropped":..,"rate-limited":..,...}
    public func stats(_ c: FieldCounters) -> String {
        let drops: [(String, Int)] = [("rate-limited", c.rateLimited), ("malformed", c.malformed), ("unexpected", c.unexpected),
                                      ("spoofed-own", c.spoofedOwn), ("unknown-sender", c.unknownSender),
                                      ("wrong-source", c.wrongSource), ("stale", c.stale)]
        if json {
            let pairs: [(String, JSON)] = [("event", .string("field-stats")), ("received", .int(c.received)),
                                           ("sent", .int(c.sent)), ("dropped", .int(c.dropped))]
            return JSON.object(pairs + drops.map { ($0.0, .int($0.1)) }).serialized
        }
        let detail = drops.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        return "field-stats received \(c.received) sent \(c.sent) dropped \(c.dropped) (\(detail))"
    }

    public func message(_ event: String, code: String? = nil, _ text: String) -> String {
        if json {
            var pairs: [(String, JSON)] = [("event", .string(event))]
            if let code { pairs.append(("code", .string(code))) }
            pairs.append(("message", .string(text)))
            return JSON.object(pairs).serialized
        }
        return OutputFormatter.escaped(code.map { "\(event) \($0): \(text)" } ?? "\(event): \(text)")
    }
}

/// Coalesces a sphere's lines to at most one per `gap` (10 per second): a change within the gap
/// waits, and only the newest state is printed when the gap ends. Sans-I/O, on the caller's time.
public struct SphereLineThrottle: Sendable {
    public let gap: Duration
    private var lastPrinted: [SphereKey: Instant] = [:]
    private var pending: [SphereKey: FieldSphere] = [:]

    public init(gap: Duration = .milliseconds(100)) { self.gap = gap }

    /// A sphere changed: returns it if it may be printed now, else keeps it for `due(now:)`.
    public mutating func offer(_ s: FieldSphere, now: Instant) -> FieldSphere? {
        if let last = lastPrinted[s.key], now < last + gap {
            pending[s.key] = s
            return nil
        }
        lastPrinted[s.key] = now
        pending[s.key] = nil
        return s
    }

    /// A sphere left: nothing of it is pending any more.
    public mutating func forget(_ key: SphereKey) {
        pending[key] = nil
        lastPrinted[key] = nil
    }

    /// The pending states whose gap has ended, in drawing order.
    public mutating func due(now: Instant) -> [FieldSphere] {
        var out: [FieldSphere] = []
        for (key, s) in pending where lastPrinted[key].map({ now >= $0 + gap }) ?? true {
            out.append(s)
            pending[key] = nil
            lastPrinted[key] = now
        }
        return out.sorted { $0.key < $1.key }
    }

    /// When the next pending state may be printed.
    public func nextDeadline() -> Instant? {
        pending.keys.compactMap { lastPrinted[$0].map { $0 + gap } }.min()
    }
}
