/// Why ``Bridge/register(_:deadline:)`` or ``Bridge/subscribe(_:toCommands:deadline:)`` refused a
/// module. Nothing of a refused module is subscribed.
public enum ModuleRegistrationError: Error, Hashable, CustomStringConvertible {
    /// A command was asked for that the module's table has no handler for.
    case noHandler(module: String, command: String)
    /// The table declares the command twice (after trimming and mapping legacy aliases).
    case duplicateCommand(module: String, command: String)
    /// The table declares a command whose name is empty or only spaces.
    case emptyCommandName(module: String)

    /// A sentence naming the module and, where there is one, the command at fault.
    public var description: String {
        switch self {
        case .noHandler(let module, let command):
            return "Module '\(module)' has no handler for '\(command)': add a BridgeCommand for it to its table"
        case .duplicateCommand(let module, let command):
            return "Module '\(module)' declares '\(command)' more than once"
        case .emptyCommandName(let module):
            return "Module '\(module)' declares a command with an empty name"
        }
    }
}
