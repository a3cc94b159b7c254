import TicTacWire

/// The core's actions in the order they happen, and frames encoded into buffers the shell gives
/// back (`recycle`), so a warm loop allocates no array per frame.
final class Outbox {
    private(set) var actions: [DaemonAction] = []
    private var spareFrameBuffers: [[UInt8]] = []
    private let deadlines: LinkDeadlines

    init(deadlines: LinkDeadlines) {
        self.deadlines = deadlines
    }

    /// Encodes `message` for `link` (in the link's version, else `version`, else ours).
    func send(_ link: Link, _ message: Message, version: UInt8? = nil) {
        guard !link.closing else { return }
        deadlines.touch(link.id) // sending is how almost every state change shows: timers may move
        var bytes = spareFrameBuffers.popLast() ?? []
        message.encode(into: &bytes, version: version ?? link.version ?? ProtocolVersion.current)
        actions.append(.send(link.id, bytes))
    }

    func emit(_ event: consuming DaemonEvent) { actions.append(.event(event)) }

    /// A line for the operator's log, not the player.
    func log(_ line: String) { actions.append(.log(line)) }

    func close(_ id: LinkID, flush: Bool) { actions.append(.close(id, flush: flush)) }

    func append(_ action: DaemonAction) { actions.append(action) }

    /// Faults on links whose peer never proved an id (strangers): logged and counted, never
    /// shown to the player (a stranger must not be able to make the front write).
    private(set) var strangerFaults = 0

    /// A protocol fault: ERROR to the peer, then close after flushing it. The event goes first:
    /// closing may report the link's end (peer-lost) at once.
    func fail(_ link: Link, _ code: ErrorCode, _ text: String) {
        guard !link.closing else { return }
        send(link, .error(code: code.rawValue, message: text))
        link.closeReason = text
        link.faulted = true
        if let peer = link.peer {
            emit(.protocolError(peer, code: code, message: text, sent: true))
        } else {
            strangerFaults += 1
            log("sent ERROR \(code) to \(link.address): \(text)")
        }
        close(link.id, flush: true)
    }

    /// The peer sent ERROR: show it and close.
    func peerError(_ link: Link, _ rawCode: UInt16, _ text: String) {
        link.closeReason = "\(link.peer?.name ?? "the peer") reported: \(text)"
        let code = ErrorCode(rawValue: rawCode) ?? .internalError
        link.faulted = code != .timeout // the peer heard nothing from us: the path, not a fault
        if let peer = link.peer {
            emit(.protocolError(peer, code: code, message: text, sent: false))
        } else {
            strangerFaults += 1
            log("ERROR \(code) from \(link.address): \(text)")
        }
        close(link.id, flush: false)
    }

    /// Hands the queued actions over: the two buffers trade places (none allocated).
    func poll(into out: inout [DaemonAction]) {
        precondition(out.isEmpty, "pollActions(into:) takes an empty buffer") // our callers' own
        swap(&out, &actions)
    }

    /// Takes back a sent frame's bytes for a later frame; a buffer not given back is freed.
    func recycle(_ bytes: consuming [UInt8]) {
        var buffer = bytes
        guard spareFrameBuffers.count < 4, buffer.capacity <= 4096 else { return }
        buffer.removeAll(keepingCapacity: true)
        spareFrameBuffers.append(buffer)
    }
}
