/// Takes the `consolelog` command: one line of a page's console (``PageConsoleLine``), handed to
/// the host's ``PageConsole``. Answered from memory, at once: `{"logged": true}`, or `false` when
/// the line was over the page's limit and dropped. Nothing is stored, and nothing a command reads
/// changes (only the page's rate-limit count), so the command reads only (`.fromMemory(.readsOnly)`):
/// a line sent while the page loads is taken at once, before the page load's records are written.
struct ConsoleLogModule: BridgeModule {
    /// The command's name.
    static let command = "consolelog"

    let name = "Console"
    let console: PageConsole

    var commands: CommandTable {
        BridgeCommand.fromMemory(Self.command) { request, context in
            let line = try PageConsoleLine(data: request.data)
            return ["logged": .bool(console.receive(line, context: context))]
        }
    }
}
