/// One console command's `Data` (`consolelog`, or the `consoleinfo`, `consolewarn` and
/// `consoleerror` of storyclm.js 1.1.0), read leniently (docs/PROTOCOL.md §5.10):
///
/// - `{"level": "warn", "message": "text"}`: a message that is not a string is written as JSON;
/// - `{"level": "log", "args": ["text", 1, {"a": 2}]}`: the arguments joined with spaces, each
///   that is not a string written as JSON;
/// - `"text"`: a bare string, at the command's level; an array: taken as `args`;
/// - storyclm.js 1.1.0's debug console (`StoryCLMBridge.Invoke` from its `console` replacement):
///   `consolelog {"log": X}`, `consoleinfo {"info": X}`, `consolewarn {"warn": X}` and
///   `consoleerror {"error": X}`, where `X` is the one argument the page passed (any JSON), an
///   `Error`'s stack, or a copy of `arguments` (`{"0": A, "1": B}`, joined like `args`); and `{}`,
///   what `JSON.stringify` leaves of `{"log": undefined}` (`console.log()`), the line `undefined`.
///
/// An object may also carry `dropped`, the lines the page itself left out (its own rate limit)
/// since it last sent one; an object with `dropped` only reports them and carries no line.
package struct PageConsoleLine: Sendable, Equatable {
    /// The level the page used; ``PageConsoleLevel/log`` when it named none or an unknown one.
    package var level: PageConsoleLevel
    /// The line's text; `nil` for a report of dropped lines only.
    package var message: String?
    /// Lines the page dropped before this one.
    package var droppedByPage: Int

    /// Creates a line.
    package init(level: PageConsoleLevel, message: String?, droppedByPage: Int = 0) {
        self.level = level
        self.message = message
        self.droppedByPage = droppedByPage
    }

    /// Reads a console command's `Data`; `level` is the command's own (`consoleinfo` → info…),
    /// taken when `Data` names none. Throws a 400 for an object that carries no line (`message`,
    /// `args`, the member named after the command's level) and is neither `{}` nor a count of
    /// dropped lines, and for a `dropped` that is not a whole number of zero or more.
    package init(data: JSONValue, level commandLevel: PageConsoleLevel = .log) throws(BridgeError) {
        switch data {
        case .string(let text):
            self.init(level: commandLevel, message: text)
        case .array(let arguments):
            self.init(level: commandLevel, message: Self.joined(arguments))
        case .object(let members):
            var dropped = 0
            if let value = members["dropped"], value != .null {
                guard let count = value.intValue, count >= 0 else {
                    throw .invalidData(field: "dropped", reason: "must be a whole number of zero or more, got \(value.jsonString())")
                }
                dropped = count
            }
            let level = members["level"]?.stringValue.map { PageConsoleLevel(name: $0) } ?? commandLevel
            if let message = members["message"], message != .null {
                self.init(level: level, message: Self.text(of: message), droppedByPage: dropped)
            } else if let arguments = members["args"], arguments != .null {
                self.init(level: level, message: Self.joined(arguments.arrayValue ?? [arguments]), droppedByPage: dropped)
            } else if let argument = members[commandLevel.rawValue] {
                // storyclm.js 1.1.0: `{log: log}`, `{info: info}`, `{warn: warn}`, `{error: stack}`
                // or `{error: arguments}`, the copy of `arguments` an object of indexes.
                self.init(level: level, message: Self.text(ofLegacyArgument: argument), droppedByPage: dropped)
            } else if dropped > 0 || members["dropped"] != nil {
                self.init(level: level, message: nil, droppedByPage: dropped)
            } else if members.isEmpty {
                // storyclm.js 1.1.0's `console.log()` / `console.log(undefined)`: `{log: undefined}`
                // is sent as `{}`.
                self.init(level: level, message: "undefined")
            } else {
                throw .invalidData(
                    field: "message",
                    reason: "is missing: a console line needs 'message', 'args' or '\(commandLevel.rawValue)'")
            }
        default:
            self.init(level: commandLevel, message: Self.text(of: data))
        }
    }

    /// storyclm.js 1.1.0's one argument: `arguments` copied by `JSON.stringify` (an object whose
    /// keys are `"0"` to `"n-1"`) as the arguments joined; anything else as one argument.
    private static func text(ofLegacyArgument value: JSONValue) -> String {
        guard case .object(let members) = value, !members.isEmpty else { return text(of: value) }
        var arguments: [JSONValue] = []
        for index in 0..<members.count {
            guard let argument = members[String(index)] else { return text(of: value) }
            arguments.append(argument)
        }
        return joined(arguments)
    }

    /// Console arguments as one line: strings as they are, anything else as JSON, with spaces.
    private static func joined(_ arguments: [JSONValue]) -> String {
        arguments.map(text(of:)).joined(separator: " ")
    }

    private static func text(of value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return value.jsonString()
    }
}
