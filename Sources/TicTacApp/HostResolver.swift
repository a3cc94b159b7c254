import Dispatch
import TicTacNet

/// Resolves `HOST:PORT` off the loop: getaddrinfo may wait seconds on a slow DNS server, and a
/// loop that waits answers no PING meanwhile (every peer would time out). Each lookup runs on a
/// thread of its own; its answer comes back on the reactor's thread through a LoopInbox, as the
/// bot's searches do.
public final class HostResolver {
    public typealias Answer = Result<[SocketAddress], AddressError>
    /// The lookup itself, run off the loop (getaddrinfo through `SocketAddress.resolve` unless a
    /// test injects another).
    public typealias Lookup = @Sendable (String) -> Answer

    public static let getaddrinfo: Lookup = { text in Result { () throws(AddressError) in try SocketAddress.resolve(text) } }

    private let lookup: Lookup
    /// Set once in `init` (a closure on `self` cannot be made before `self` is).
    private var inbox: LoopInbox<(UInt64, Answer)>?
    private var waiting: [UInt64: (Answer) -> Void] = [:]
    private var nextID: UInt64 = 0

    public init(reactor: Reactor, lookup: @escaping Lookup = HostResolver.getaddrinfo) throws(NetError) {
        self.lookup = lookup
        inbox = try LoopInbox(reactor: reactor) { [weak self] in self?.deliver($0.0, $0.1) }
    }

    /// Lookups not answered yet.
    public var pending: Int { waiting.count }

    /// Resolves `text` off the loop; `then` gets the answer on the reactor's thread.
    public func resolve(_ text: String, then: @escaping (Answer) -> Void) {
        nextID += 1
        let id = nextID
        waiting[id] = then
        guard let sender = inbox?.sender else { return }
        let lookup = lookup
        DispatchQueue.global().async { sender.post((id, lookup(text))) }
    }

    private func deliver(_ id: UInt64, _ answer: Answer) {
        waiting.removeValue(forKey: id)?(answer)
    }
}
