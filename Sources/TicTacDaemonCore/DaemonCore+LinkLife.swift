import TicTacAPI
import TicTacDiscoveryCore
import TicTacEngine
import TicTacTime
import TicTacWire

// A link's life below what it carries: opened (our HELLO), every frame received (opened if
// sealed, decoded, the handshake until the peer is proven), and the peer proven.
extension DaemonCore {
    func linkOpened(_ id: LinkID, outgoing: Bool, address: String, port: UInt16?, now: Instant) {
        let highest = config.versions.upperBound
        let nonce = HandshakeTranscript.marked(random.id(), maxVersion: highest)
        let link = Link(id: id, outgoing: outgoing, address: address, port: outgoing ? port : nil,
                        openedAt: now, nonce: nonce, ephemeral: highest >= 2 ? ephemeralKey() : nil)
        links.insert(link)
        if !outgoing { admission.opened(id, from: address) }
        deadlines.touch(id)
        // The header carries our highest version (Protocol.md §4); the receiver reads only fields 1 and 2.
        outbox.send(link, handshake.hello(on: link), version: highest)
    }

    /// A fresh X25519 key from the core's generator (so a seeded daemon replays).
    func ephemeralKey() -> EphemeralKey? {
        var scalar: [UInt8] = []
        for _ in 0..<4 { withUnsafeBytes(of: random.next().bigEndian) { scalar += $0 } }
        return EphemeralKey(privateKey: scalar)
    }

    func linkReceived(_ id: LinkID, _ sealed: Frame, now: Instant) {
        guard let link = links[id], !link.closing else { return }
        var frame = sealed
        if link.sealed {
            // A frame that does not open closes the link with nothing sent: no oracle (Protocol.md §4).
            // Opened into the core's buffer (taken out while written: `takeOut`), reused from
            // frame to frame once a frame's payload is gone; only a small one is kept.
            var spare = takeOut(&openedSpare)
            let plain = link.open(sealed, reusing: &spare)
            if spare.count <= 1024 { openedSpare = spare }
            guard let plain else { return outbox.closeUnread(link) }
            frame = plain
        }
        link.liveness.lastHeard = now
        deadlines.touch(id)
        // HELLO and ERROR are read whatever the header's version (Protocol.md §4); before the
        // peer's HELLO nothing else is, whatever it holds.
        let anyVersion = frame.type == Message.Kind.hello.rawValue || frame.type == Message.Kind.error.rawValue
        if link.version == nil, !anyVersion {
            return outbox.fail(link, .unexpectedMessage, "expected HELLO first, got message type \(frame.type)")
        }
        if let version = link.version, frame.version != version, !anyVersion {
            return outbox.fail(link, .unsupportedVersion, "frame of version \(frame.version) on a version \(version) connection")
        }
        // The spectators' messages are version 2's (Protocol.md §14): on a version-1 link
        // they are unknown types, as a version-1 daemon reads them.
        if link.version == 1, Message.Kind(rawValue: frame.type)?.isSpectating == true {
            if frame.isIgnorable { return }
            return outbox.fail(link, .unknownType, "message type \(frame.type) is not defined in version 1")
        }
        let message: Message
        do {
            message = try Message(frame: frame)
        } catch {
            if case .unknownType(_, ignorable: true) = error { return } // Protocol.md §2: skip it
            // No ERROR answers an ERROR, even one we cannot read (Protocol.md §5): just close.
            if frame.type == Message.Kind.error.rawValue { return outbox.peerError(link, ErrorCode.malformed.rawValue, "an ERROR that does not decode (\(error))") }
            return outbox.fail(link, error.code, error.description)
        }
        if link.ready {
            receive(message, on: link, now: now)
        } else if case .hello = message, !link.outgoing, let refusal = handshakes.refusal(link.address, now: now) {
            outbox.fail(link, .busy, refusal)
        } else {
            switch handshake.receive(message, on: link, links: links, outbox: outbox) {
            case .waiting: break
            case let .fault(code, text): outbox.fail(link, code, text)
            case let .peerError(code, text): outbox.peerError(link, code, text)
            case let .proven(peer, heir): proven(link, peer, heir: heir, now: now)
            }
        }
        bot?.playTurns(matches, now: now)
    }

    /// The peer's PROOF verified on `link`.
    func proven(_ link: Link, _ peer: PeerInfo, heir: PeerInfo?, now: Instant) {
        let others = links.links(to: peer.id).count { $0 !== link && $0.ready && !$0.closing }
        if others >= config.maxLinksPerPeer {
            return outbox.fail(link, .busy, "\(others) links to \(peer.name) already (Protocol.md §5)")
        }
        if link.outgoing { bot?.wants.insert(peer.id) }
        for part in messageParts.all { part.linkProven(link) }
        // Two ready links to the same daemon (Protocol.md §4, duplicate links). The lower instance
        // id decides: it closes the newer link now, before anything but the handshake went on it,
        // so nothing it knows of is lost; the higher keeps a spare until the lower closes one.
        if links.links(to: peer.id).contains(where: { $0 !== link && $0.ready && !$0.closing }) {
            if config.instanceID < peer.id {
                link.closeReason = "a duplicate of another link to \(peer.name)"
                outbox.close(link.id, flush: false)
                links.remove(link.id)
                invitations.botInviteIfWanted(peer.id, now: now)
            }
            return
        }
        link.announce()
        // RESUME first (Protocol.md §13: "at once"): an INVITE before it would start a roll that
        // the RESUME then arrives in, and the peer must refuse that as a fault.
        suspensions.linkReady(link, now: now)
        if heir != nil {
            // It takes over from an announced link that closed: the peer never left the lobby.
            if let invite = link.outgoingInvite { invitations.resend(invite, on: link) } // moved here
        } else {
            lobby.linkReady(peer)
            invitations.linkReady(link, peer, now: now)
        }
        for part in messageParts.all { part.linkAnnounced(link, peer) }
        invitations.botInviteIfWanted(peer.id, now: now)
    }
}
