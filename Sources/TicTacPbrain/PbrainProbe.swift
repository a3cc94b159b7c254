import TicTacEngine

/// The engine's interview at the bot's start: ABOUT (its name and version, for the log and the
/// bot's first line), then one START n or RECTSTART w,h per candidate board, each answered OK
/// (it plays that board) or ERROR (it does not), then END. Pure: the host writes `poll()`'s
/// bytes and feeds the engine's lines to `received`; `done` says when it is over.
public struct PbrainProbe {
    /// ABOUT's answer as the log shows it ("name version"), nil without one.
    public private(set) var about: String?
    /// The boards the engine answered OK to.
    public private(set) var accepted: [BoardSize] = []
    /// Notes for the operator's log (refusals, garbage), in order.
    public private(set) var notes: [String] = []
    public private(set) var done = false

    private let candidates: [BoardSize]
    private var next = 0
    private var asking: BoardSize?
    private var askedAbout = false
    /// RECTSTART answered UNKNOWN: the engine knows only square boards.
    private var squaresOnly = false
    private var out = ""

    public init(candidates: [BoardSize] = EngineBoards.candidates) {
        self.candidates = candidates
        askedAbout = true
        out += PbrainCommand.about.text
    }

    /// Takes the bytes to write to the engine.
    public mutating func poll() -> String {
        defer { out = "" }
        return out
    }

    /// One line from the engine.
    public mutating func received(_ line: String) {
        guard !done, !line.allSatisfy({ $0 == " " || $0 == "\t" }) else { return }
        let reply = PbrainReply.parse(line)
        switch reply {
        case .message, .debug, .suggest: return notes.append("engine \(reply.keyword): \(PbrainSession.shown(line))")
        default: break
        }
        if askedAbout {
            askedAbout = false
            switch reply {
            case .unknown, .error: notes.append("the engine has no ABOUT (\(PbrainSession.shown(line)))")
            default: about = PbrainAbout.description(line)
            }
            return askNext()
        }
        guard let size = asking else { return notes.append("unasked line: \(PbrainSession.shown(line))") }
        asking = nil
        switch reply {
        case .ok:
            accepted.append(size)
        case .unknown where size.rows != size.cols:
            squaresOnly = true
        case .error, .unknown:
            break
        default:
            notes.append("answered \"\(PbrainSession.shown(line))\" to \(PbrainCommand.start(size).line): taken as a refusal")
        }
        askNext()
    }

    /// The engine stopped answering or exited: the probe ends with what it has.
    public mutating func giveUp(_ why: String) {
        guard !done else { return }
        notes.append(why)
        done = true
    }

    private mutating func askNext() {
        while next < candidates.count {
            let size = candidates[next]
            next += 1
            if squaresOnly, size.rows != size.cols { continue }
            asking = size
            out += PbrainCommand.start(size).text
            return
        }
        out += PbrainCommand.end.text
        done = true
    }

    /// What the probe is waiting for, for a timeout's message.
    public var waitingFor: String {
        if askedAbout { return "ABOUT" }
        return asking.map { PbrainCommand.start($0).line } ?? "nothing"
    }
}
