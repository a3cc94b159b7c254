#if canImport(Glibc)
import Glibc
#endif
import CDNSSD
import TicTacNet
import TicTacTime
import TicTacDiscoveryCore

/// The DNS-SD agent over Avahi's dns_sd compatibility library: the shell around `DNSSDCore`.
///
/// Every DNSServiceRef's socket is watched by the reactor; DNSServiceProcessResult runs only when
/// that socket is readable, so the loop never blocks on the library. (Creating a ref does block
/// briefly: the library connects to avahi-daemon over D-Bus in the call itself.) Callbacks reach
/// Swift through a per-ref context object passed retained and released after the ref is gone.
public final class AvahiDNSSDAgent: DNSSDAgent {
    public var onEvent: ((DNSSDEvent) -> Void)?

    private let reactor: Reactor
    private var core: DNSSDCore
    private var open: [DNSSDOperation: [OpenRef]] = [:]
    private var queue: [DNSSDAction] = []
    private var draining = false
    private var timer: Reactor.TimerID?
    private var timerDeadline: Instant?
    /// Inside DNSServiceProcessResult: refs closed now are deallocated after it returns.
    private var processing = false
    private var retired: [OpenRef] = []

    private struct OpenRef {
        let ref: DNSServiceRef
        let fd: Int32
        let context: Unmanaged<RefContext>
    }

    /// Done once, before the first dns_sd call: quiets the library's warning about being a
    /// compatibility layer, and makes its allocations zeroed (see CDNSSD's shim.h: without it a
    /// resolve open when avahi-daemon goes away crashes the process).
    private static let prepareLibrary: Void = {
        setenv("AVAHI_COMPAT_NOWARN", "1", 1)
        tictac_avahi_use_zeroing_allocator()
    }()

    /// An agent for `service` driven by `reactor` (the thread that runs it gets every callback
    /// and event); with `publishes` false it only browses.
    public init(reactor: Reactor, service: DNSSDService = .tictactoe, timing: DNSSDTiming = DNSSDTiming(),
                publishes: Bool = true) {
        self.reactor = reactor
        core = DNSSDCore(service: service, timing: timing, publishes: publishes)
        _ = Self.prepareLibrary
    }

    deinit {
        for (_, refs) in open { for r in refs { close(r) } }
        for r in retired { deallocate(r) }
        if let timer { reactor.cancel(timer) }
    }

    public func start(name: String, port: UInt16, txt: DNSSDTXT) { feed(.start(name: name, port: port, txt: txt)) }
    public func update(txt: DNSSDTXT) { feed(.update(txt)) }
    public func stop() { feed(.stop) }

    /// The number of DNSServiceRefs open now (tests check that stop releases them all).
    public var openRefCount: Int { open.values.reduce(0) { $0 + $1.count } }

    // MARK: Core plumbing

    fileprivate func feed(_ input: DNSSDInput?) {
        if let input { core.handle(input, now: reactor.now) } else { core.handleTimeout(now: reactor.now) }
        queue += core.pollActions()
        guard !draining else { return } // an action's callback fed us: the loop below takes it
        draining = true
        while !queue.isEmpty { perform(queue.removeFirst()) }
        draining = false
        rearmTimer()
    }

    private func rearmTimer() {
        let next = core.pollTimeout()
        guard next != timerDeadline else { return }
        if let timer { reactor.cancel(timer) }
        timer = nil
        timerDeadline = next
        guard let next else { return }
        timer = reactor.schedule(at: next) { [unowned self] in
            timer = nil
            timerDeadline = nil
            feed(nil) // the timer
        }
    }

    private func perform(_ action: DNSSDAction) {
        let type = core.service.type
        switch action {
        case let .register(name, port, txt):
            openRef(.register) { ref, ctx in
                txt.withUnsafeBytes { t in
                    DNSServiceRegister(ref, 0, 0, name, type, nil, nil, port.bigEndian,
                                       UInt16(t.count), t.baseAddress, { _, _, err, name, _, _, ctx in
                        RefContext.from(ctx)?.registerReply(err, name)
                    }, ctx)
                }
            }
        case let .updateTXT(txt):
            guard let reg = open[.register]?.first else { return } // re-registered later with it
            let err = txt.withUnsafeBytes { DNSServiceUpdateRecord(reg.ref, nil, 0, UInt16($0.count), $0.baseAddress, 0) }
            if err != 0 { feed(.failed(.register, code: err)) }
        case .browse:
            openRef(.browse) { ref, ctx in
                DNSServiceBrowse(ref, 0, 0, type, "local", { _, flags, _, err, name, _, _, ctx in
                    RefContext.from(ctx)?.browseReply(flags, err, name)
                }, ctx)
            }
        case let .resolve(name):
            openRef(.resolve(name)) { ref, ctx in
                DNSServiceResolve(ref, 0, 0, name, type, "local", { _, _, _, err, _, host, port, len, txt, ctx in
                    RefContext.from(ctx)?.resolveReply(err, host, UInt16(bigEndian: port), len, txt)
                }, ctx)
            }
        case let .queryAddresses(name, host):
            for rrtype in [UInt16(kDNSServiceType_A), UInt16(kDNSServiceType_AAAA)] {
                openRef(.addresses(name)) { ref, ctx in
                    DNSServiceQueryRecord(ref, 0, 0, host, rrtype, UInt16(kDNSServiceClass_IN), { _, flags, ifIndex, err, _, rrtype, _, len, data, _, ctx in
                        RefContext.from(ctx)?.queryReply(flags, ifIndex, err, rrtype, len, data)
                    }, ctx)
                }
            }
        case let .cancel(op):
            for r in open.removeValue(forKey: op) ?? [] { close(r) }
        case .cancelAll:
            let all = open
            open = [:]
            for (_, refs) in all { for r in refs { close(r) } }
        case let .emit(event):
            if core.isStarted { onEvent?(event) } // none after stop(), even one already queued
        }
    }

    /// Starts one dns_sd operation with a fresh context; a failure goes back to the core.
    private func openRef(_ op: DNSSDOperation,
                         _ call: (UnsafeMutablePointer<DNSServiceRef?>, UnsafeMutableRawPointer) -> DNSServiceErrorType) {
        let context = Unmanaged.passRetained(RefContext(agent: self, op: op))
        var ref: DNSServiceRef?
        let err = call(&ref, context.toOpaque())
        guard err == 0, let ref else {
            context.release() // the library never calls back for a ref it did not create
            feed(.failed(op, code: err == 0 ? DNSSDCode.unknown : err))
            return
        }
        let fd = DNSServiceRefSockFD(ref)
        let r = OpenRef(ref: ref, fd: fd, context: context)
        do throws(NetError) {
            guard fd >= 0 else { throw NetError("DNSServiceRefSockFD", errno: EBADF) }
            try reactor.register(fd, .read) { [unowned self] _ in process(op, ref) }
        } catch {
            close(r, registered: false)
            feed(.failed(op, code: DNSSDCode.unknown))
            return
        }
        open[op, default: []].append(r)
    }

    /// The ref's socket is readable: exactly one DNSServiceProcessResult, which cannot block now.
    private func process(_ op: DNSSDOperation, _ ref: DNSServiceRef) {
        processing = true
        let err = DNSServiceProcessResult(ref)
        processing = false
        let stillOpen = open[op]?.contains(where: { $0.ref == ref }) == true
        for r in retired { deallocate(r) }
        retired = []
        // A callback may have cancelled this very ref; report only for a ref still open.
        if err != 0, stillOpen { feed(.failed(op, code: err)) }
    }

    /// Stops watching a ref. Inside DNSServiceProcessResult its deallocation waits until that
    /// returns: the library may hold further callbacks for it in the same dispatch, and their
    /// context must stay valid (they are dropped, as the context is marked closed).
    private func close(_ r: OpenRef, registered: Bool = true) {
        if registered { reactor.unregister(r.fd) }
        r.context.takeUnretainedValue().closed = true
        if processing { retired.append(r) } else { deallocate(r) }
    }

    private func deallocate(_ r: OpenRef) {
        DNSServiceRefDeallocate(r.ref) // no callback for this ref after this returns
        r.context.release()
    }

    // MARK: Callbacks (reached through RefContext)

    fileprivate func registerReply(_ op: DNSSDOperation, _ err: DNSServiceErrorType, _ name: UnsafePointer<CChar>?) {
        guard err == 0, let name else { return feed(.failed(op, code: err == 0 ? DNSSDCode.unknown : err)) }
        feed(.registered(name: String(cString: name)))
    }

    fileprivate func browseReply(_ op: DNSSDOperation, _ flags: DNSServiceFlags, _ err: DNSServiceErrorType,
                                 _ name: UnsafePointer<CChar>?) {
        guard err == 0, let name else { return feed(.failed(op, code: err == 0 ? DNSSDCode.unknown : err)) }
        feed(.browsed(instance: String(cString: name), added: flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0,
                      moreComing: flags & DNSServiceFlags(kDNSServiceFlagsMoreComing) != 0))
    }

    fileprivate func resolveReply(_ op: DNSSDOperation, _ err: DNSServiceErrorType, _ host: UnsafePointer<CChar>?,
                                  _ port: UInt16, _ txtLen: UInt16, _ txt: UnsafePointer<UInt8>?) {
        guard case let .resolve(name) = op else { return }
        guard err == 0, let host else { return feed(.failed(op, code: err == 0 ? DNSSDCode.unknown : err)) }
        let record = txt.map { Array(UnsafeBufferPointer(start: $0, count: Int(txtLen))) } ?? []
        feed(.resolved(instance: name, host: String(cString: host), port: port, txt: DNSSDTXT.avahiWireOrder(record)))
    }

    fileprivate func queryReply(_ op: DNSSDOperation, _ flags: DNSServiceFlags, _ ifIndex: UInt32,
                                _ err: DNSServiceErrorType, _ rrtype: UInt16, _ len: UInt16, _ data: UnsafeRawPointer?) {
        guard case let .addresses(name) = op else { return }
        guard err == 0 else { return feed(.failed(op, code: err)) }
        // A record of the wrong size is from a broken or hostile responder: skipped.
        guard let data, let ip = Self.address(rrtype: rrtype, UnsafeRawBufferPointer(start: data, count: Int(len)),
                                             interface: ifIndex) else { return }
        feed(.address(instance: name, ip: ip, added: flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0))
    }

    /// An A (4 bytes) or AAAA (16 bytes) record as text; an IPv6 link-local address gets the
    /// interface it was seen on as scope, without which it cannot be dialled.
    static func address(rrtype: UInt16, _ rdata: UnsafeRawBufferPointer, interface: UInt32) -> String? {
        let family: Int32
        switch (rrtype, rdata.count) {
        case (UInt16(kDNSServiceType_A), 4): family = AF_INET
        case (UInt16(kDNSServiceType_AAAA), 16): family = AF_INET6
        default: return nil
        }
        var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard let base = rdata.baseAddress, inet_ntop(family, base, &buf, socklen_t(buf.count)) != nil else { return nil }
        let text = String(decoding: buf.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let linkLocal = family == AF_INET6 && rdata[0] == 0xFE && rdata[1] & 0xC0 == 0x80
        return linkLocal && interface != 0 ? "\(text)%\(interface)" : text
    }
}

/// What a callback's context pointer points at: the agent and which operation the ref serves.
/// Retained while its ref is open (the agent releases it after DNSServiceRefDeallocate).
private final class RefContext {
    unowned let agent: AvahiDNSSDAgent
    let op: DNSSDOperation
    /// Cancelled: callbacks still delivered before its deallocation are dropped.
    var closed = false

    init(agent: AvahiDNSSDAgent, op: DNSSDOperation) {
        self.agent = agent
        self.op = op
    }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> RefContext? {
        pointer.map { Unmanaged<RefContext>.fromOpaque($0).takeUnretainedValue() }
    }

    func registerReply(_ err: DNSServiceErrorType, _ name: UnsafePointer<CChar>?) {
        guard !closed else { return }
        agent.registerReply(op, err, name)
    }

    func browseReply(_ flags: DNSServiceFlags, _ err: DNSServiceErrorType, _ name: UnsafePointer<CChar>?) {
        guard !closed else { return }
        agent.browseReply(op, flags, err, name)
    }

    func resolveReply(_ err: DNSServiceErrorType, _ host: UnsafePointer<CChar>?, _ port: UInt16, _ len: UInt16,
                      _ txt: UnsafePointer<UInt8>?) {
        guard !closed else { return }
        agent.resolveReply(op, err, host, port, len, txt)
    }

    func queryReply(_ flags: DNSServiceFlags, _ ifIndex: UInt32, _ err: DNSServiceErrorType, _ rrtype: UInt16,
                    _ len: UInt16, _ data: UnsafeRawPointer?) {
        guard !closed else { return }
        agent.queryReply(op, flags, ifIndex, err, rrtype, len, data)
    }
}
