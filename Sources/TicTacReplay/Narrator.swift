import TicTacEngine
import TicTacJSON
import TicTacWire

/// One thing `tictac replay` tells: a line for a person, and the same as a JSON object.
public struct Story: Sendable {
    /// Seconds since the first packet.
    public var at: Double
    public var event: String
    public var fields: [(String, JSON)]
    public var text: String
    /// Something a person debugging their LAN should look at.
    public var abnormal: Bool
    /// Not ours and not a fault (mDNS, the original SphereNet packet, ICMP): told, not counted
    /// as abnormal.
    public var other = false

    /// `{"event":..,"t":..,...,"abnormal":..}`, in the style of plain mode's `--json`;
    /// `abnormal` is what the text marks `!!` and the summary counts.
    public var json: String {
        JSON.object([("event", .string(event)), ("t", .string(String(format3(at))))] + fields
                    + [("abnormal", .bool(abnormal))]).serialized
    }

    public var line: String { "\(format3(at))s  \(abnormal ? "!! " : other ? "-- " : "")\(text)" }
}

private func format3(_ x: Double) -> String {
    let ms = Int((x * 1000).rounded())
    let frac = String(ms % 1000)
    return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
}

/// Tells what a capture shows, without any seed: the peers seen, each connection with its
/// handshake, invitations and games move by move, and anything abnormal. It tells only what the
/// capture holds: after a hole in a stream, or once a stream is sealed, that stream is not told.
public enum Narrator {
    public static func tell(_ capture: Capture) -> [Story] {
        var stories: [(packet: Int, order: Int, story: Story)] = []
        let t0 = min(capture.connections.map(\.established).min() ?? .max, capture.datagrams.map(\.time).min() ?? .max,
                     capture.skipped.map(\.time).min() ?? .max, capture.others.map(\.time).min() ?? .max)
        func at(_ t: Int64) -> Double { Double(t - (t0 == .max ? t : t0)) / 1e9 }
        func add(_ packet: Int, _ t: Int64, _ event: String, _ fields: [(String, JSON)], _ text: String, _ mark: Mark) {
            var story = Story(at: at(t), event: event, fields: fields, text: text, abnormal: mark == .abnormal)
            story.other = mark == .other
            stories.append((packet, stories.count, story))
        }
        for s in capture.skipped {
            add(s.packet, s.time, "skipped", [("packet", .int(s.packet + 1)), ("reason", .string(s.reason))],
                "packet \(s.packet + 1) skipped: \(s.reason)", .abnormal)
        }
        for o in capture.others {
            add(o.packet, o.time, "other", [("packet", .int(o.packet + 1)), ("what", .string(o.what))],
                "packet \(o.packet + 1): \(o.what), not tictac", .other)
        }
        for d in capture.datagrams { DatagramTeller.tell(d, add) }
        for c in capture.connections { connection(c, add) }
        if let cut = capture.cutShort {
            let times = capture.connections.flatMap { $0.events.map(\.time) + [$0.established] } + capture.datagrams.map(\.time)
                + capture.skipped.map(\.time) + capture.others.map(\.time)
            add(capture.packetCount, times.max() ?? t0, "cut-capture", [("where", .string(cut))],
                "the capture file ends inside a packet (\(cut)): told up to the packet before it", .abnormal)
        }
        return stories.sorted { ($0.packet, $0.order) < ($1.packet, $1.order) }.map(\.story)
    }

    /// The last line of a story: what is abnormal, and what was not tictac's but no fault.
    public static func summary(_ stories: [Story]) -> String {
        let abnormal = stories.filter(\.abnormal).count, other = stories.filter(\.other).count
        return (abnormal == 0 ? "nothing abnormal" : "\(abnormal) abnormal event(s), marked !!")
            + (other == 0 ? "" : "; \(other) other packet(s), not tictac and no fault (mDNS, SphereNet, ICMP), marked --")
    }

    /// How a story counts in the summary.
    enum Mark: Equatable { case normal, abnormal, other }

    typealias Add = (Int, Int64, String, [(String, JSON)], String, Mark) -> Void

    /// Per connection: the frames of both directions in capture order, with a game tracker.
    private static func connection(_ c: CapturedConnection, _ add: Add) {
        let link = "\(c.client) -> \(c.server)"
        add(c.establishedPacket, c.established, "connection", [("client", .string(c.client.description)), ("server", .string(c.server.description)),
                                                                 ("syn", .bool(c.sawSYN))],
            "connection \(link)\(c.sawSYN ? "" : " (already open when the capture started)")", .normal)
        var readers = [FrameReader(), FrameReader()]
        var offsets = [0, 0], failed = [false, false]
        var left = [false, false], cut = [false, false], sealed = [false, false], proved = [false, false], told = [false, false]
        var hellos: [Hello?] = [nil, nil]
        var closed = false
        var game = GameTracker(names: [c.client.description, c.server.description])
        for e in c.events {
            let side = e.fromClient ? 0 : 1
            let who = game.names[side]
            switch e.kind {
            case let .data(bytes):
                guard !failed[side], !cut[side] else { continue }
                var frames: [Frame] = []
                let error = readers[side].receive(bytes) { frames.append($0); return true }
                for frame in frames {
                    let start = offsets[side]
                    offsets[side] += Frame.headerLength + frame.payload.count
                    guard !sealed[side] else { continue }
                    // Version 2 seals every frame a side sends after its own PROOF (Protocol.md §4); before
                    // it only HELLO, PROOF and ERROR go, so any other version-2 frame is sealed, even
                    // when the capture began after the handshake.
                    let clear: Set<UInt8> = [Message.Kind.hello.rawValue, Message.Kind.proof.rawValue, Message.Kind.error.rawValue]
                    let opened = frame.flags & Frame.openedFlag != 0 // by the key log (OpenedStreams)
                    let seal = !opened && ((Self.negotiated(hellos) ?? 1) >= 2 && proved[side] || frame.version >= 2 && !clear.contains(frame.type))
                    if opened, !told[side] {
                        told[side] = true
                        add(e.packet, e.time, "opened", [("from", .string(who)), ("version", .int(Int(frame.version)))],
                            "\(who): sealed (protocol version \(frame.version)): opened with the key log", .normal)
                    }
                    guard let message = seal ? nil : try? Message(frame: frame) else {
                        if frame.version >= 2 && frame.type != Message.Kind.hello.rawValue {
                            sealed[side] = true
                            add(e.packet, e.time, "sealed", [("from", .string(who)), ("version", .int(Int(frame.version)))],
                                "\(who): sealed (protocol version \(frame.version)): not told", .normal)
                            continue
                        }
                        let reason = Self.why(frame)
                        add(e.packet, e.time, "undecodable", [("from", .string(who)), ("offset", .int(start)), ("reason", .string(reason))],
                            "\(who): frame at byte \(start) does not decode: \(reason)", .abnormal)
                        continue
                    }
                    if case let .hello(h) = message {
                        hellos[side] = h
                        game.names[side] = "\(h.name.value)@\(side == 0 ? c.client : c.server)"
                    }
                    if case .proof = message { proved[side] = true }
                    if case .leave = message { left[side] = true }
                    for (event, fields, text, abnormal) in game.tell(message, side: side) {
                        add(e.packet, e.time, event, [("from", .string(game.names[side]))] + fields, text, abnormal ? .abnormal : .normal)
                    }
                }
                if let error {
                    failed[side] = true
                    let at = offsets[side] + readers[side].bufferedCount - bytes.count
                    add(e.packet, e.time, "undecodable", [("from", .string(who)), ("offset", .int(max(offsets[side], at))), ("reason", .string("\(error)"))],
                        "\(who): bytes from offset \(offsets[side]) do not decode: \(error)", .abnormal)
                }
            case let .gap(missing, seq):
                cut[side] = true
                game.blind = true
                let to = game.names[1 - side]
                add(e.packet, e.time, "gap", [("from", .string(who)), ("to", .string(to)), ("missing", .int(missing)), ("seq", .int(Int(seq)))],
                    "\(who) -> \(to): \(missing) bytes missing after seq \(seq): the rest of this stream is not told", .abnormal)
            case .fin, .reset:
                closed = true
                let how = e.kind == .fin ? "closed (FIN)" : "reset the connection (RST)"
                // What a sealed or cut stream said is not known: no claim about its LEAVE.
                let unknown = sealed[side] || cut[side] || failed[side]
                let clean = unknown || left[side] || left[1 - side] || game.sawError
                add(e.packet, e.time, "closed", [("by", .string(who)), ("how", .string(e.kind == .fin ? "fin" : "rst")),
                                                  ("after-leave", .bool(left[side]))],
                    "\(who) \(how)" + (clean ? "" : " without LEAVE"), clean ? .normal : .abnormal)
            }
        }
        let last = (packet: c.events.last?.packet ?? c.establishedPacket, time: c.events.last?.time ?? c.established)
        if let (event, fields, text) = game.unfinished(closed: closed, left: left[0] || left[1]) {
            add(last.packet, last.time, event, fields, text, .normal)
        }
        for (side, count) in [(0, c.retransmissions.client), (1, c.retransmissions.server)] where count > 0 {
            add(last.packet, last.time, "retransmissions",
                [("from", .string(game.names[side])), ("count", .int(count))], "\(game.names[side]): \(count) retransmitted segment(s)", .abnormal)
        }
        for side in 0..<2 where readers[side].bufferedCount > 0 && !failed[side] && !cut[side] {
            add(last.packet, last.time, "cut-frame",
                [("from", .string(game.names[side])), ("bytes", .int(readers[side].bufferedCount))],
                "\(game.names[side]): the stream ends inside a frame (\(readers[side].bufferedCount) bytes)", .abnormal)
        }
    }

    /// The version both HELLOs negotiate, once both are in.
    private static func negotiated(_ hellos: [Hello?]) -> UInt8? {
        guard let a = hellos[0], let b = hellos[1], a.minVersion <= a.maxVersion else { return nil }
        return ProtocolVersion.negotiate(local: a.minVersion...a.maxVersion, remoteMin: b.minVersion, remoteMax: b.maxVersion)
    }

    private static func why(_ frame: Frame) -> String {
        do { _ = try Message(frame: frame); return "" } catch { return "\(error)" }
    }
}
