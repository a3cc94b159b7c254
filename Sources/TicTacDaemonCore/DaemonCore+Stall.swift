import TicTacTime

// A stop of our own loop (SIGSTOP, a suspended VM): links are judged by what they do after it,
// not by the silence it caused.
extension DaemonCore {
    /// Our loop was stopped for `length`: every ready link is PINGed now and judged one round later.
    func stalled(_ length: Duration, now: Instant) {
        let tenths = max(0, (length.wholeNanoseconds + 50_000_000) / 100_000_000)
        let stopped = "this program was stopped for \(tenths / 10).\(tenths % 10) s"
        let round = config.pingAfter
        stall = Stall(text: "\(stopped) and the link did not survive it", at: now, pingsDue: true,
                      hold: now + round, blameUntil: now + round + round, backlog: Int(tenths / 10) + 2)
        outbox.log("\(stopped): every link is PINGed and judged \(round) later, its silence not held against it")
    }

    /// PING on every ready link, once what waited for us was read (the first timeout after the
    /// stall comes after that turn's reads): a PING sent before it could be answered by a reset
    /// that drops, unread, what the peer said before it closed.
    func pingAfterStall(now: Instant) {
        stall?.pingsDue = false
        for id in links.sortedIDs {
            guard let link = links[id], !link.closing, link.ready else { continue }
            link.liveness.lastPing = now
            outbox.send(link, .ping(nonce: random.next()))
        }
    }

    /// The stop a link lost now is owed to (`stall`), if any.
    func stallBlame(_ now: Instant) -> String? {
        guard let s = stall, now <= s.blameUntil else { return nil }
        return s.text
    }
}

/// What a stall of our own loop leaves behind (`DaemonCore.stalled`).
struct Stall {
    /// What a link lost to it is said to be lost to.
    var text: String
    /// When we woke.
    var at: Instant
    /// Every ready link is to be PINGed, at the first timeout (after that turn's reads).
    var pingsDue: Bool
    /// Nothing on a link is judged before this (one PING round, for the peers to be heard).
    var hold: Instant?
    /// A link lost before this is said lost to the stop, not to the peer.
    var blameUntil: Instant
    /// PINGs a peer may have queued meanwhile (one per second of it), read at once: not a flood.
    var backlog: Int
}
