/// One `consolelog` command's `Data`, read leniently: the vendor's own format is not public, so
/// the forms a page may reasonably send are all taken (docs/PROTOCOL.md, "consolelog").
///
/// - `{"level": "warn", "message": "text"}`: a message that is not a string is written as JSON;
/// - `{"level": "log", "args": ["text", 1, {"a": 2}]}`: the arguments joined with spaces, each
///   that is not a string written as JSON;
/// - `"text"`: a bare string, at level `log`;
/// - an array: taken as `args`, at level `log`.
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

    /// Reads a `consolelog` command's `Data`. Throws a 400 for an object that carries neither a
    /// line (`message`, `args`) nor a count of dropped lines, and for a `dropped` that is not a
    /// whole number of zero or more.
    package init(data: JSONValue) throws(BridgeError) {
        switch data {
        case .string(let text):
            self.init(level: .log, message: text)
        case .array(let arguments):
            self.init(level: .log, message: Self.joined(arguments))
        case .object(let members):
            var dropped = 0
            if let value = members["dropped"], value != .null {
                guard let count = value.intValue, count >= 0 else {
                    throw .invalidData(field: "dropped", reason: "must be a whole number of zero or more, got \(value.jsonString())")
                }
                dropped = count
            }
            let level = PageConsoleLevel(name: members["level"]?.stringValue)
            if let message = members["message"], message != .null {
                self.init(level: level, message: Self.text(of: message), droppedByPage: dropped)
            } else if let arguments = members["args"], arguments != .null {
                self.init(level: level, message: Self.joined(arguments.arrayValue ?? [arguments]), droppedByPage: dropped)
            } else if dropped > 0 || members["dropped"] != nil {
                self.init(level: level, message: nil, droppedByPage: dropped)
            } else {
                throw .invalidData(field: "message", reason: "is missing: a console line needs 'message' or 'args'")
            }
        default:
            self.init(level: .log, message: Self.text(of: data))
        }
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
