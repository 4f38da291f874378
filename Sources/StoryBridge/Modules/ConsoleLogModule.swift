/// Takes the console commands: one line of a page's console (``PageConsoleLine``), handed to the
/// host's ``PageConsole``. `consolelog` is what the client sends (any level, in `Data`);
/// `consoleinfo`, `consolewarn` and `consoleerror` are the rest of storyclm.js 1.1.0's debug
/// console, which replaces `window.console` and sends `consolelog {log}`, `consoleinfo {info}`,
/// `consolewarn {warn}` and `consoleerror {error}` (docs/PROTOCOL.md §5.10). Answered from memory,
/// at once: `{"logged": true}`, or `false` when the line was over the page's limit and dropped.
/// Nothing is stored, and nothing a command reads changes (only the page's rate-limit count), so
/// the commands read only (`.fromMemory(.readsOnly)`): a line sent while the page loads is taken
/// at once, before the page load's records are written.
struct ConsoleLogModule: BridgeModule {
    /// The client's command.
    static let command = "consolelog"

    /// Every console command and the level it logs at when its `Data` names none.
    static let levels: [(command: String, level: PageConsoleLevel)] = [
        (command, .log), ("consoleinfo", .info), ("consolewarn", .warn), ("consoleerror", .error),
    ]

    /// Whether `command` (as sent) is a console command: its lines show in the inspector as lines,
    /// not as the requests that carried them.
    static func isConsoleCommand(_ command: String) -> Bool {
        guard command.utf8.first == UInt8(ascii: "c"), command.hasPrefix("console") else { return false }
        return levels.contains { $0.command == command }
    }

    let name = "Console"
    let console: PageConsole

    var commands: CommandTable {
        Self.levels.map { entry in
            BridgeCommand.fromMemory(entry.command) { request, context in
                let line = try PageConsoleLine(data: request.data, level: entry.level)
                return ["logged": .bool(console.receive(line, context: context))]
            }
        }
    }
}
