import TicTacAPI
import TicTacEngine

// The sentences both fronts (plain mode and the full screen) say of games and invitations.
extension OutputFormatter {
    /// The interrupted game's line, with the time left to wait as m:ss.
    /// `reason`: why the link was lost, said in brackets (none when empty).
    public static func interruptedText(_ p: PeerInfo, seconds: Int, reason: String = "", keys: String) -> String {
        let left = "\(max(0, seconds) / 60):" + String(String(max(0, seconds) % 60 + 100).dropFirst())
        let why = reason.isEmpty ? "" : " (\(reason))"
        return "Connection to \(p.name) lost\(why): waiting for \(p.name), \(left) left; \(keys)"
    }

    /// A window or clock in whole seconds, as the fronts say it.
    package static func seconds(_ d: Duration) -> Int { Int(d.components.seconds) }

    /// The error a daemon event reports (an ERROR frame, a failed connection), else nil; `code`
    /// is its name in plain mode's `error` event.
    static func errorText(_ event: DaemonEvent) -> String? {
        switch event {
        case let .protocolError(p, _, message, sent):
            let who = p?.name ?? "peer"
            return sent ? "\(who) sent bad data: \(message)" : "\(who): \(message)"
        case let .connectFailed(to, reason): return "Cannot connect to \(to): \(reason)"
        default: return nil
        }
    }

    static func errorCode(_ event: DaemonEvent) -> String {
        switch event {
        case let .protocolError(_, code, _, _): code.description
        case .connectFailed: "connect-failed"
        case let .error(code, _): code
        default: "internal"
        }
    }

    static func spectatorsText(_ p: PeerInfo, allowed: Bool) -> String {
        allowed ? "\(p.name) allows spectators again: your games with \(p.name) may be watched"
                : "\(p.name) allows no spectators now: your games with \(p.name) are not watched"
    }

    /// Only a watcher asks (`tictac watch`, WatchOutput): a player's front never should.
    static func watchedText(_ p: PeerInfo) -> String { "\(p.name) sent news of a game to watch" }

    /// How many watch our games; `undo`: how this front refuses them.
    public static func watchersText(_ n: Int, undo: String) -> String {
        n == 0 ? "Nobody watches your games now" : "\(n) watching your games (\(undo) refuses watchers)"
    }

    public static func adjournedText(_ p: PeerInfo) -> String {
        "The game with \(p.name) is adjourned: it goes on the next time you are both here"
    }

    /// The peer disowned the game we held with it: ours (the game-over follows).
    public static func abandonedText(_ p: PeerInfo, _ reason: String) -> String {
        "\(p.name) abandoned the game (\(reason)): you win it"
    }

    public static func claimedText(_ p: PeerInfo, won: Bool, _ reason: String) -> String {
        won ? "The game with \(p.name) is claimed as yours (\(reason)); if \(p.name) comes back free, it goes on"
            : "\(p.name) claimed the game (\(reason)): you lose it"
    }

    public static func withdrawnText(_ p: PeerInfo, _ reason: String) -> String {
        "Your claim on the game with \(p.name) is withdrawn (\(reason)): the game goes on"
    }

    /// Why the opponent is gone, said once: the reason when there is one ("ben left", "no answer
    /// for 5.0 seconds"), with the peer's name in front unless the reason starts with it.
    static func disconnectedText(_ p: PeerInfo, reason: String) -> String {
        let trimmed = reason.trimmingPrefix(" ")
        if trimmed.isEmpty { return FullScreenModel.disconnectedText }
        return trimmed.hasPrefix(p.name) ? String(trimmed) : "\(p.name): \(trimmed)"
    }

    static func inviteHeldText(_ p: PeerInfo, size: BoardSize, ahead: Int) -> String {
        let board = size == .classic ? "" : " on \(size.rows)x\(size.cols), \(size.k) in a row"
        let before = ahead == 1 ? "the invitation you are answering" : "\(ahead) invitations"
        return "\(p.name) invites you to play\(board) too: asked after \(before)"
    }

    static func heldInviteDeclinedText(_ p: PeerInfo) -> String {
        "\(p.name)'s invitation was declined: you are in a game"
    }

    /// An invitation nobody answered (Protocol.md §6, INVITE).
    static func inviteExpiredText(_ p: PeerInfo) -> String {
        "No answer within 30 s: \(p.name)'s invitation was declined"
    }
}
