import TicTacTime
import TicTacWire

/// One dns_sd operation the shell keeps open (a DNSServiceRef, or two for the addresses).
public enum DNSSDOperation: Sendable, Hashable {
    case register, browse
    /// DNSServiceResolve of one instance (kept open: Avahi's resolver reports SRV/TXT changes).
    case resolve(String)
    /// DNSServiceQueryRecord for the A and AAAA records of an instance's host target.
    case addresses(String)
}

/// What the shell tells the core.
public enum DNSSDInput: Sendable, Hashable {
    case start(name: String, port: UInt16, txt: DNSSDTXT)
    case update(DNSSDTXT)
    case stop
    /// An operation failed: synchronously when started, or later through its callback.
    case failed(DNSSDOperation, code: Int32)
    /// The register callback without error: the final instance name.
    case registered(name: String)
    /// A browse callback: an instance added or removed; `moreComing` while the batch goes on.
    case browsed(instance: String, added: Bool, moreComing: Bool)
    /// A resolve callback: the SRV target and port, the raw TXT record.
    case resolved(instance: String, host: String, port: UInt16, txt: [UInt8])
    /// An address record of the instance's host target came or went.
    case address(instance: String, ip: String, added: Bool)
}

/// What the core asks of the shell, in order.
public enum DNSSDAction: Sendable, Hashable {
    case register(name: String, port: UInt16, txt: [UInt8])
    case updateTXT([UInt8])
    case browse
    case resolve(instance: String)
    case queryAddresses(instance: String, host: String)
    /// Deallocate the operation's refs (no-op if none are open).
    case cancel(DNSSDOperation)
    case cancelAll
    case emit(DNSSDEvent)
}

/// The timings of the DNS-SD agent (Protocol.md §10).
public struct DNSSDTiming: Sendable {
    /// A resolve (SRV, TXT and a first address) not answered within this is abandoned...
    public var resolveTimeout: Duration = .seconds(5)
    /// ...and tried again after this, doubling up to `resolveRetryMax`.
    public var resolveRetryFirst: Duration = .seconds(5)
    public var resolveRetryMax: Duration = .seconds(60)
    /// With the daemon absent: first retry after this, doubling up to `unavailableRetryMax`.
    public var unavailableRetryFirst: Duration = .seconds(1)
    public var unavailableRetryMax: Duration = .seconds(30)
    /// Registration renames ("Name #2", "#3", ...) tried on local conflicts before giving up.
    public var maxRenames = 100

    /// The timings Protocol.md §10 gives.
    public init() {}
}

/// dns_sd result codes the core tells apart (<dns_sd.h>).
public enum DNSSDCode {
    /// kDNSServiceErr_Unknown: how Avahi's library reports a daemon it cannot reach.
    public static let unknown: Int32 = -65537
    /// kDNSServiceErr_NameConflict: the name is taken (Avahi: by another of its clients).
    public static let nameConflict: Int32 = -65548
}

/// Which DNS-SD service an agent publishes and browses.
public enum DNSSDService: Sendable, Hashable {
    /// `_tictactoe._tcp`: the daemon, its TCP port, the TXT record of Protocol.md §10.
    case tictactoe
    /// `_spherenet._udp` (the seed's type): the collaborative field, its UDP port, the TXT
    /// record of Protocol.md §11.
    case field

    /// The service type, without the domain.
    public var type: String {
        switch self {
        case .tictactoe: "_tictactoe._tcp"
        case .field: "_spherenet._udp"
        }
    }

    /// Our TXT record as this service publishes it.
    public func encode(_ txt: DNSSDTXT) -> [UInt8] {
        switch self {
        case .tictactoe: txt.encoded()
        case .field: txt.encodedForField()
        }
    }

    /// A peer's record read by this service's rules; nil: not a peer.
    public func decode(_ raw: [UInt8]) -> DNSSDTXT? { try? decodeOrThrow(raw) }

    /// The same, saying why a record is not a peer's.
    public func decodeOrThrow(_ raw: [UInt8]) throws(DNSSDTXTError) -> DNSSDTXT {
        switch self {
        case .tictactoe: try DNSSDTXT(decoding: raw)
        case .field: try DNSSDTXT(decodingField: raw)
        }
    }
}
