import TicTacTime

/// When each link next needs the timer: handshake limit, liveness, PING, invitation, game.
/// Deadlines live in a min-heap recomputed only for the links an input touched, so the next
/// deadline is O(log n). An entry is current only while it equals the link's `heapAt`: an
/// earlier deadline pushes a new entry, a later one waits for its entry to come up (lazy
/// deletion).
final class LinkDeadlines {
    private var touched: [LinkID] = []
    private var heap = DeadlineHeap<LinkID>()
    // Nanoseconds, added to instants at every refresh.
    private let deadAfterNs: Int64, pingAfterNs: Int64, handshakeTimeoutNs: Int64, inviteTimeoutNs: Int64
    private let inviteGraceNs: Int64

    init(config: DaemonConfig, inviteGrace: Duration) {
        deadAfterNs = config.deadAfter.wholeNanoseconds
        pingAfterNs = config.pingAfter.wholeNanoseconds
        handshakeTimeoutNs = config.handshakeTimeout.wholeNanoseconds
        inviteTimeoutNs = config.inviteTimeout.wholeNanoseconds
        inviteGraceNs = inviteGrace.wholeNanoseconds
    }

    /// Marks a link's deadline for recomputing; a frame and its answer touch one link in a row.
    func touch(_ id: LinkID) {
        var all = takeOut(&touched)
        if all.last != id { all.append(id) }
        touched = all
    }

    /// The nearest deadline of every link.
    func next(in links: LinkRegistry) -> Instant? {
        refresh(links)
        var heap = takeOut(&self.heap) // nothing called here reads it
        defer { self.heap = heap }
        while let top = heap.first, links[top.value]?.liveness.heapAt != top.at { heap.popFirst() } // stale
        return heap.first?.at
    }

    /// The links whose deadline has come, in id order; each is touched again (its next one).
    func due(at now: Instant, in links: LinkRegistry) -> [LinkID] {
        refresh(links)
        var heap = takeOut(&self.heap) // nothing called here reads it
        defer { self.heap = heap }
        var due: [LinkID] = []
        while let top = heap.first, top.at <= now {
            heap.popFirst()
            guard let link = links[top.value], link.liveness.heapAt == top.at else { continue } // stale
            link.liveness.heapAt = nil
            guard let d = link.liveness.deadline else { continue }
            if d <= now {
                due.append(link.id)
            } else { // early: the deadline moved later since the entry was pushed
                heap.push(d, link.id)
                link.liveness.heapAt = d
            }
        }
        due.sort()
        var touched = takeOut(&self.touched)
        for id in due {
            links[id]?.liveness.deadline = nil
            touched.append(id)
        }
        self.touched = touched
        return due
    }

    private func deadline(of link: Link) -> Instant? {
        guard !link.closing else { return nil }
        func after(_ at: Instant, _ ns: Int64) -> Instant { Instant(nanoseconds: at.nanoseconds &+ ns) }
        var best = after(link.liveness.lastHeard, deadAfterNs)
        if link.ready {
            best = min(best, after(max(link.liveness.lastHeard, link.liveness.lastPing ?? link.liveness.lastHeard), pingAfterNs))
        } else {
            best = min(best, after(link.openedAt, handshakeTimeoutNs))
        }
        if let inv = link.outgoingInvite { best = min(best, after(inv.at, inviteTimeoutNs)) }
        if let inv = link.incomingInvite ?? link.heldInvite { best = min(best, after(inv.at, inviteTimeoutNs &+ inviteGraceNs)) }
        if let g = link.match?.game.pollTimeout() { best = min(best, g) }
        return best
    }

    private func refresh(_ links: LinkRegistry) {
        var touched = takeOut(&self.touched)
        guard !touched.isEmpty else { return self.touched = touched }
        var heap = takeOut(&self.heap) // nothing called here reads it
        defer { self.heap = heap }
        for id in touched {
            guard let link = links[id] else { continue }
            let d = deadline(of: link)
            link.liveness.deadline = d
            if let d, link.liveness.heapAt.map({ d < $0 }) ?? true {
                heap.push(d, id)
                link.liveness.heapAt = d
            }
        }
        touched.clearKeepingCapacity()
        self.touched = touched
    }
}
