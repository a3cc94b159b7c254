import ArgumentParser
import Logging
import TicTacApp
import TicTacTerminal
import TicTacWire

struct SpheresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spheres",
        abstract: "The collaborative field: move your coloured sphere, see everyone else's move.",
        discussion: """
        Starts a daemon that announces the field (Protocol.md §11) and finds the others on the LAN \
        by itself: no hosting or joining. Arrows or hjkl move your sphere, shift or HJKL take big \
        steps, c changes colour, q quits. Plain mode (--plain, or when standard input is not a \
        terminal) reads move DX DY, goto X Y, color R G B, quit, and prints sphere and sphere-left \
        events. --bot wanders by itself without reading input. See docs/field.md.
        """
    )

    @Option(help: "Your display name (1-64 bytes; the field shows its first 24 bytes). Default: login@host.")
    var name: String?

    @Option(help: ArgumentHelp("Your sphere's colour, 0-255 each (default: one picked at random).", valueName: "r,g,b"))
    var color: String?

    @Flag(help: "Plain line mode: one command in, one event out per line.")
    var plain = false

    @Flag(help: "With plain mode, print each event as one JSON object per line.")
    var json = false

    @Flag(help: "A headless participant that wanders around the field (prints events as plain mode does).")
    var bot = false

    @Flag(help: "No colours: each sphere shows its initial (also: the NO_COLOR environment variable).")
    var noColor = false

    @Option(help: "Log level on standard error: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .warning

    @OptionGroup var discovery: DiscoveryOptions

    func validate() throws {
        if let name { _ = try checked(try DisplayName(name)) }
        if let color, FieldCommand.parseColor(color) == nil {
            throw ValidationError("--color must be R,G,B with each 0 to 255, e.g. 255,128,0")
        }
    }

    func run() throws {
        var config = SpheresConfiguration()
        config.name = try name.map { try checked(DisplayName($0)) }
        config.color = color.flatMap(FieldCommand.parseColor)
        config.plain = plain
        config.json = json
        config.bot = bot
        config.noColor = noColor
        config.log = LogSettings(level: logLevel)
        config.discovery = discovery.settings
        try finish(SpheresApp.run(config))
    }
}
