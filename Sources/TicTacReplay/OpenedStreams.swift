import TicTacDaemonCore
import TicTacWire

/// A capture's version-2 streams opened with a key log (`tictac replay --key-log`): each sealed
/// frame becomes its plain frame, marked `Frame.openedFlag`, so the narrator tells it as a
/// version-1 frame and `--write-plain` writes a capture the dissector reads in clear.
///
/// A link is found by its dialler's ephemeral key (the client's HELLO field 8). Each side's
/// frames after its own PROOF are sealed (Protocol.md §4); they open in order, one counter per
/// direction. A frame that does not open, a stream that does not decode, or a hole in it
/// leaves the rest of that direction as it was captured (told as sealed, or as undecodable).
public enum OpenedStreams {
    /// What opening did, per connection, for the narrator.
    public struct Report: Sendable, Equatable {
        /// Connections opened with a key, and version-2 ones with no key in the log.
        public var opened = 0, withoutKey = 0
        /// Frames opened, and frames that did not open with the key the log gave.
        public var frames = 0, failed = 0
    }

    /// `capture` with every stream the key log opens made plain.
    public static func open(_ capture: Capture, with log: KeyLog) -> (Capture, Report) {
        var out = capture
        var report = Report()
        for i in out.connections.indices {
            let c = out.connections[i]
            let hello = DaemonReplay.firstHello(c.bytes(fromClient: true))
            guard let keys = hello?.ephemeralKey.flatMap(log.keys(diallerEphemeralKey:)) ?? (hello == nil ? trial(c, log) : nil) else {
                if sealed(c) { report.withoutKey += 1 }
                continue
            }
            report.opened += 1
            out.connections[i] = open(c, keys, &report)
        }
        return (out, report)
    }

    /// The keys that open a connection whose client HELLO the capture missed (it began after
    /// the SYN): each of the log's links is tried on its first sealed frames, as a TLS tool does
    /// without the client random.
    private static func trial(_ c: CapturedConnection, _ log: KeyLog) -> LinkKeys? {
        log.links.values.first { keys in
            var scratch = Report()
            _ = open(c, keys, &scratch)
            return scratch.frames > 0 && scratch.failed == 0
        }
    }

    /// The connection speaks version 2 (a frame of version 2 or more on it).
    private static func sealed(_ c: CapturedConnection) -> Bool {
        var reader = FrameReader()
        var v2 = false
        _ = reader.receive(c.bytes(fromClient: true)) { frame in
            v2 = frame.version >= 2
            return !v2
        }
        return v2
    }

    /// One direction's reading: frames in, plain bytes out.
    private struct Side {
        var reader = FrameReader()
        var opener: LinkCipher
        var proved = false
        /// Bytes received since the last whole frame (the start of the frame being read).
        var unread: ArraySlice<UInt8> = []
        /// Past a fault (undecodable bytes, a frame that does not open, a hole): bytes as captured.
        var raw = false

        /// The plain bytes for one segment's `bytes`: the frames it completes, opened; after a
        /// fault, the rest as captured.
        mutating func take(_ bytes: [UInt8], _ report: inout Report) -> [UInt8] {
            unread += bytes
            var plain: [UInt8] = []
            var reader = self.reader
            let error = reader.receive(bytes) { frame in
                guard let opened = reveal(frame, &report) else {
                    raw = true
                    return false
                }
                plain += opened.bytes
                unread.removeFirst(Frame.headerLength + frame.payload.count)
                return true
            }
            self.reader = reader
            if error != nil { raw = true }
            return raw ? plain + unread : plain
        }

        /// The frame as it goes into the plain stream: opened when sealed; nil when it does not open.
        private mutating func reveal(_ frame: Frame, _ report: inout Report) -> Frame? {
            guard proved, frame.version >= 2 else {
                if frame.type == Message.Kind.proof.rawValue { proved = true }
                return Frame(version: frame.version, type: frame.type, flags: frame.flags, payload: Array(frame.payload))
            }
            guard var opened = opener.open(frame) else {
                report.failed += 1
                return nil
            }
            report.frames += 1
            opened.flags |= Frame.openedFlag
            return opened
        }
    }

    private static func open(_ c: CapturedConnection, _ keys: LinkKeys, _ report: inout Report) -> CapturedConnection {
        var out = c
        out.events = []
        var sides = [Side(opener: keys.opener(fromDialler: true)), Side(opener: keys.opener(fromDialler: false))]
        for e in c.events {
            let s = e.fromClient ? 0 : 1
            guard case let .data(bytes) = e.kind, !sides[s].raw else {
                if case .gap = e.kind { sides[s].raw = true }
                out.events.append(e)
                continue
            }
            let data = sides[s].take(bytes, &report)
            if !data.isEmpty { out.events.append(.init(time: e.time, packet: e.packet, fromClient: e.fromClient, kind: .data(data))) }
        }
        return out
    }
}
