import TicTacAPI
import TicTacEngine
import TicTacWire

/// The HELLO/PROOF handshake of one link (Protocol.md §4): both sides send HELLO (version
/// negotiated, the id checked against the public key), the dialler sends PROOF, the acceptor
/// checks it and sends its own; ready once the peer's PROOF verifies. What a ready link means
/// for the lobby, duplicates and invitations is the core's business (`Step.proven`).
struct Handshake {
    /// What a message before readiness led to.
    enum Step {
        /// Nothing more to do until the next frame.
        case waiting
        /// A protocol fault: ERROR with this code and text, then close.
        case fault(ErrorCode, String)
        /// The peer sent ERROR.
        case peerError(UInt16, String)
        /// The peer's PROOF verified: the link is ready (not yet announced). `heir`: the peer of
        /// an announced link that closed while this one awaited the PROOF.
        case proven(PeerInfo, heir: PeerInfo?)
    }

    let config: DaemonConfig

    /// Our HELLO on `link`: the versions we offer, the nonce the peer's PROOF must sign and,
    /// when we offer version 2, our ephemeral key.
    func hello(on link: Link) -> Message {
        .hello(Hello(minVersion: config.versions.lowerBound, maxVersion: config.versions.upperBound,
                     instanceID: config.instanceID, name: config.name, capabilities: config.capabilities,
                     publicKey: config.identity.publicKey, nonce: link.session.nonce, ephemeralKey: link.session.ourEphemeralKey,
                     program: config.program))
    }

    /// A message on a link that is not ready yet.
    func receive(_ message: Message, on link: Link, links: LinkRegistry, outbox: Outbox) -> Step {
        switch message {
        case let .error(code, text):
            return .peerError(code, text)
        case let .hello(hello) where link.peerHello == nil:
            return helloReceived(hello, on: link, links: links, outbox: outbox)
        case let .proof(signature) where link.peerHello != nil:
            return proofReceived(signature, on: link, outbox: outbox)
        case .hello:
            return .fault(.unexpectedMessage, "second HELLO")
        default:
            return .fault(.unexpectedMessage, "expected \(link.peerHello == nil ? "HELLO" : "PROOF") first, got \(message.kind)")
        }
    }

    private func helloReceived(_ hello: Hello, on link: Link, links: LinkRegistry, outbox: Outbox) -> Step {
        let ours = config.versions
        guard let version = ProtocolVersion.negotiate(local: ours, remoteMin: hello.minVersion, remoteMax: hello.maxVersion) else {
            return .fault(.unsupportedVersion,
                          "no common version: we speak \(ours.lowerBound)...\(ours.upperBound), the peer \(hello.minVersion)...\(hello.maxVersion)")
        }
        // A marked nonce declares the sender's highest version and is signed: a HELLO that offers
        // less than its own nonce declares was altered on the way (a downgrade; Protocol.md §4).
        if let declared = HandshakeTranscript.markedVersion(hello.nonce), declared > hello.maxVersion,
           let honest = ProtocolVersion.negotiate(local: ours, remoteMin: hello.minVersion, remoteMax: declared), honest > version {
            return .fault(.unsupportedVersion, "HELLO offers up to version \(hello.maxVersion), its nonce says \(declared): altered on the way")
        }
        guard hello.instanceID != config.instanceID else { return .fault(.unexpectedMessage, "connected to itself") }
        guard StrictEd25519.acceptsKey(hello.publicKey) else {
            return .fault(.badIdentity, "the public key in HELLO is of small order or not canonical")
        }
        guard Identity.instanceID(forPublicKey: hello.publicKey) == hello.instanceID else {
            return .fault(.badIdentity, "the public key in HELLO does not give instance id \(hello.instanceID)")
        }
        if version >= 2 {
            guard let theirs = hello.ephemeralKey, let ephemeral = link.session.ephemeral else {
                return .fault(.malformed, "a version \(version) HELLO without its ephemeral key (field 8)")
            }
            guard let secret = ephemeral.sharedSecret(with: theirs) else {
                return .fault(.badIdentity, "the ephemeral key in HELLO is of small order")
            }
            let us = HandshakeTranscript.Side(id: config.instanceID, nonce: link.session.nonce, ephemeralKey: ephemeral.publicKey)
            let them = HandshakeTranscript.Side(id: hello.instanceID, nonce: hello.nonce, ephemeralKey: theirs)
            let session = HandshakeTranscript.session(version: version, dialler: link.outgoing ? us : them,
                                                      acceptor: link.outgoing ? them : us)
            let keys = SessionKeys.derive(sharedSecret: secret, session: session)
            let cipher = keys.cipher(dialler: link.outgoing)
            link.changeSession { $0.pendingCipher = cipher }
            if config.logsKeys {
                outbox.append(.keys(LinkKeys(diallerEphemeralKey: link.outgoing ? ephemeral.publicKey : theirs,
                                             diallerToAcceptor: keys.diallerToAcceptor, acceptorToDialler: keys.acceptorToDialler)))
            }
        }
        link.changeSession { session in
            session.ephemeral = nil // used once; what the PROOF signs is in the HELLOs
            session.handshake = .awaitingProof(hello, version: version, heir: nil)
        }
        links.bind(link, to: hello.instanceID)
        // The dialler proves first; the acceptor signs only for a peer that has proven its own id,
        // so dialling us cannot obtain our signature for a transcript naming someone else.
        return link.outgoing ? sendProof(on: link, outbox: outbox) : .waiting
    }

    private func proofReceived(_ signature: [UInt8], on link: Link, outbox: Outbox) -> Step {
        guard let version = link.version, let hello = link.peerHello else { return .waiting }
        guard config.identity.verifyProof(signature, version: version, peer: hello, ourNonce: link.session.nonce,
                                          ourEphemeralKey: link.session.ourEphemeralKey) else {
            return .fault(.badIdentity, "PROOF does not verify with the key of instance id \(hello.instanceID)")
        }
        if !link.outgoing, case let .fault(code, text) = sendProof(on: link, outbox: outbox) { return .fault(code, text) }
        // Both PROOFs are out: from here every frame either way is sealed (version 2).
        let heir = link.heir
        let peer = PeerInfo(id: hello.instanceID, name: hello.name.value, address: link.address,
                            port: link.port, capabilities: hello.capabilities, program: hello.program?.value)
        link.changeSession { session in
            session.cipher = session.pendingCipher
            session.pendingCipher = nil
            session.handshake = .ready(peer, version: version, announced: false)
        }
        return .proven(peer, heir: heir)
    }

    private func sendProof(on link: Link, outbox: Outbox) -> Step {
        guard let version = link.version, let hello = link.peerHello else { return .waiting }
        let us = HandshakeTranscript.Side(id: config.instanceID, nonce: link.session.nonce, ephemeralKey: link.session.ourEphemeralKey)
        let them = HandshakeTranscript.Side(id: hello.instanceID, nonce: hello.nonce, ephemeralKey: hello.ephemeralKey)
        guard let signature = config.identity.proof(version: version, ours: us, peer: them) else {
            return .fault(.internalError, "could not sign the handshake")
        }
        outbox.send(link, .proof(signature: signature))
        return .waiting
    }
}
