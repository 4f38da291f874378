/// A module's commands and their handlers, in the order declared. The names a module answers are
/// read from here, so a command cannot be listed without the code that answers it.
///
/// Write it with ``CommandTableBuilder`` (one ``BridgeCommand`` per line; `if`, `switch` and
/// `for` work too), or from an array with ``init(_:)``.
public struct CommandTable: Sendable {
    /// The commands, in the order declared.
    public let entries: [BridgeCommand]

    /// A table of `entries`.
    public init(_ entries: [BridgeCommand]) {
        self.entries = entries
    }

    /// The command names, in the order declared.
    public var names: [String] { entries.map(\.name) }
}

/// Builds a ``CommandTable`` from ``BridgeCommand`` lines:
///
/// ```swift
/// var commands: CommandTable {
///     BridgeCommand("hideMapBtn") { _, context in try await setMapButton(false, context) }
///     BridgeCommand.fromMemory("getMapButton") { _, context in .bool(mapButton(context)) }
///     for name in extraNames { BridgeCommand(name, handler: answerExtra) }
/// }
/// ```
@resultBuilder
public enum CommandTableBuilder {
    /// One command line of a table.
    public static func buildExpression(_ command: BridgeCommand) -> [BridgeCommand] { [command] }
    /// Several commands at once (for example a module's shared list).
    public static func buildExpression(_ commands: [BridgeCommand]) -> [BridgeCommand] { commands }
    /// The lines of a table, in order.
    public static func buildBlock(_ parts: [BridgeCommand]...) -> [BridgeCommand] { parts.flatMap { $0 } }
    /// Commands declared under an `if` without `else`.
    public static func buildOptional(_ part: [BridgeCommand]?) -> [BridgeCommand] { part ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [BridgeCommand]) -> [BridgeCommand] { part }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [BridgeCommand]) -> [BridgeCommand] { part }
    /// Commands declared in a `for` loop.
    public static func buildArray(_ parts: [[BridgeCommand]]) -> [BridgeCommand] { parts.flatMap { $0 } }
    /// The finished table.
    public static func buildFinalResult(_ commands: [BridgeCommand]) -> CommandTable { CommandTable(commands) }
}
