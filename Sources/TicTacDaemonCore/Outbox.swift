import TicTacAPI
import TicTacTime
import TicTacWire

/// The core's actions in the order they happen, and frames encoded into buffers the shell gives
/// back (`recycle`), so a warm loop allocates no array per frame.
final class Outbox {
    private(set) var actions: [DaemonAction] = []
    /// Frames and closes of late links, handed over by `pollLate` once the shell has carried out
    /// every other action (Protocol.md §14: a watcher's frames never go before a game's).
    private var late: [DaemonAction] = []
    /// Links whose every frame goes late (watchers'): all of them, so a sealed link's frames
    /// keep their order (each is sealed with the next counter as it is queued).
    private var lateLinks: Set<LinkID> = []
    private var spareFrameBuffers: [[UInt8]] = []
    private let deadlines: LinkDeadlines
    /// The version of a frame sent before a link's version is negotiated: our highest.
    private let version: UInt8

    init(deadlines: LinkDeadlines, version: UInt8 = ProtocolVersion.current) {
        self.deadlines = deadlines
        self.version = version
    }

    /// Encodes `message` for `link` (in the link's version, else `version`, else our highest),
    /// sealed once the link has its session keys (version 2, Protocol.md §4).
    func send(_ link: Link, _ message: Message, version: UInt8? = nil) {
        guard !link.closing else { return }
        deadlines.touch(link.id) // sending is how almost every state change shows: timers may move
        var spare = takeOut(&spareFrameBuffers)
        var bytes = spare.popLast() ?? []
        spareFrameBuffers = spare
        message.encode(into: &bytes, version: version ?? link.version ?? self.version)
        if !link.seal(&bytes) {
            // The counter is spent (2^64 - 1 frames): no nonce may repeat, so the link ends.
            link.closeReason = "the link's frame counter is spent"
            log("closing link \(link.id) to \(link.address): \(link.closeReason ?? "")")
            return close(link.id, flush: true)
        }
        queue(.send(link.id, bytes), late: lateLinks.contains(link.id))
    }

    /// From now on `id`'s frames and close go after every other action of a turn.
    func makeLate(_ id: LinkID) {
        var all = takeOut(&lateLinks)
        all.insert(id)
        lateLinks = all
    }

    /// `id` closed: nothing more is queued for it.
    func forgetLate(_ id: LinkID) {
        var all = takeOut(&lateLinks)
        all.remove(id)
        lateLinks = all
    }

    /// Queues `action` last, in the late queue or the other (taken out while appended: `takeOut`).
    private func queue(_ action: consuming DaemonAction, late toLate: Bool = false) {
        if toLate {
            var queued = takeOut(&late)
            queued.append(action)
            late = queued
        } else {
            var queued = takeOut(&actions)
            queued.append(action)
            actions = queued
        }
    }

    /// A sealed link received bytes that do not open or decode: close at once and send nothing,
    /// so a forger learns nothing from the answer (Protocol.md §4, "The authenticated stream").
    func closeUnread(_ link: Link) {
        guard !link.closing else { return }
        link.closeReason = "a frame from the peer did not open (altered, injected, replayed or reordered)"
        log("closing link \(link.id) to \(link.address): \(link.closeReason ?? "")")
        close(link.id, flush: false)
    }

    func emit(_ event: consuming DaemonEvent) { queue(.event(event)) }

    /// A line for the operator's log, not the player.
    func log(_ line: String) { queue(.log(line)) }

    func close(_ id: LinkID, flush: Bool) { queue(.close(id, flush: flush), late: lateLinks.contains(id)) }

    func append(_ action: consuming DaemonAction) { queue(action) }

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

    /// The peer sent ERROR: show it and close. `blame`: what it is owed to on our side (a stop
    /// of this program), said first.
    func peerError(_ link: Link, _ rawCode: UInt16, _ text: String, blame: String? = nil) {
        let reported = "\(link.peer?.name ?? "the peer") reported: \(text)"
        link.closeReason = blame.map { "\($0); \(reported)" } ?? reported
        let code = ErrorCode(rawValue: rawCode) ?? .internalError
        link.faulted = code != .timeout // the peer heard nothing from us: the path, not a fault
        if let peer = link.peer {
            emit(.protocolError(peer, code: code, message: blame.map { "\($0); \(text)" } ?? text, sent: false))
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

    /// Hands the late links' frames and closes over (`DaemonCore.pollLateActions`).
    func pollLate(into out: inout [DaemonAction]) {
        precondition(out.isEmpty, "pollLateActions(into:) takes an empty buffer") // our callers' own
        swap(&out, &late)
    }

    /// Takes back a sent frame's bytes for a later frame; a buffer not given back is freed.
    func recycle(_ bytes: consuming [UInt8]) {
        var buffer = bytes
        guard buffer.capacity <= 4096 else { return }
        buffer.removeAll(keepingCapacity: true)
        var spare = takeOut(&spareFrameBuffers)
        if spare.count < 4 { spare.append(buffer) }
        spareFrameBuffers = spare
    }
}
