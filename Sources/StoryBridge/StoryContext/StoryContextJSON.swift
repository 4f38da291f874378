/// JSON text of Story context values that keeps integers and floats apart: a float is always
/// written with a fraction or an exponent (`3.0`, never `3`), so that reading the text back gives
/// the same types. The bridge's own writer prints whole floats as integers (the page cannot tell
/// them apart); the context's storage, `storybridge context show` and the HTTP endpoint use this.
package enum StoryContextJSON {
    /// Compact text with sorted keys.
    package static func text(_ value: JSONValue) -> String {
        var output = ""
        append(value, to: &output)
        return output
    }

    /// Reads text written by ``text(_:)`` (or any JSON: `3` is an integer, `3.0` a float).
    package static func parse(_ text: String) throws(StoryContextError) -> JSONValue {
        do {
            return try JSONValue.parse(text)
        } catch {
            throw .notJSON(text, reason: "\(error)")
        }
    }

    private static func append(_ value: JSONValue, to output: inout String) {
        switch value {
        case .double(let number) where number.isFinite && number == number.rounded() && abs(number) < 1e15:
            output += "\(Int64(number)).0"
        case .double(let number) where number.isFinite:
            output += "\(number)"
        case .array(let elements):
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                append(element, to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (position, key) in members.keys.sorted().enumerated() {
                if position > 0 { output += "," }
                output += JSONValue.string(key).jsonString() + ":"
                append(members[key]!, to: &output)
            }
            output += "}"
        default:
            output += value.jsonString()
        }
    }
}
