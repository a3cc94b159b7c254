#if canImport(Glibc)
import Glibc
#endif
import CTicTacNet
import TicTacNet

/// A desktop notification through `notify-send` where one is installed (`tictac daemon` with no
/// front attached: an invitation must not go unseen). Started without a shell, the text as one
/// argument (a peer's name is not ours to interpret), its output to /dev/null; reaped through a
/// pidfd on the reactor.
final class DesktopNotice {
    private let reactor: Reactor
    private let program: String
    /// Notifications in flight at most: a peer that invites in a loop starts no swarm.
    private static let maxRunning = 4
    private var running: [Int32: pid_t] = [:]

    /// Nil when `notify-send` is not in PATH.
    init?(reactor: Reactor, program: String = "notify-send") {
        guard let path = Self.find(program) else { return nil }
        self.reactor = reactor
        self.program = path
    }

    /// Shows `summary` and `body`; false when it could not start.
    @discardableResult
    func show(_ summary: String, _ body: String) -> Bool {
        guard running.count < Self.maxRunning else { return false }
        // Notification servers may read the body as markup: what a peer chose is shown as text.
        let escaped = body.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;")
        let args = [program, "--app-name=tictac", summary, escaped]
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        var pid: pid_t = 0
        guard posix_spawn(&pid, program, &actions, nil, &argv, environ) == 0 else { return false }
        let pidFD = tictac_pidfd_open(pid)
        guard pidFD >= 0 else {
            waitAfter(pid) // an old kernel: reaped on a timer
            return true
        }
        running[pidFD] = pid
        do {
            try reactor.register(pidFD, .read) { [weak self] _ in self?.reap(pidFD) }
        } catch {
            running[pidFD] = nil
            close(pidFD)
            waitAfter(pid)
        }
        return true
    }

    private func reap(_ pidFD: Int32) {
        guard let pid = running.removeValue(forKey: pidFD) else { return }
        reactor.unregister(pidFD)
        close(pidFD)
        var status: Int32 = 0
        _ = waitpid(pid, &status, WNOHANG)
    }

    private func waitAfter(_ pid: pid_t, tries: Int = 0) {
        reactor.schedule(after: .milliseconds(500)) { [weak self] in
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == 0, tries < 20 { self?.waitAfter(pid, tries: tries + 1) }
        }
    }

    private static func find(_ program: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where dir.hasPrefix("/") {
            let candidate = "\(dir)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

extension String {
    /// Every `target` replaced by `replacement` (no Foundation here).
    func replacingAll(_ target: Character, _ replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
