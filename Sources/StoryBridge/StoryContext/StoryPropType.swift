/// The `type` argument of `setStoryProp`: what kind of value a leaf of the Story context holds.
///
/// Content's `context.js` names the type of every value it reports, so that the app side need not
/// guess: `3` is an `integer`, `2.5` a `float`, `null` a `null` (a key that exists and holds null,
/// unlike a deleted key). The host keeps integers and floats apart when it stores them.
package enum StoryPropType: String, Sendable, CaseIterable {
    case boolean, integer, float, string, null, object

    /// The type of `value` as content would name it.
    package static func of(_ value: JSONValue) -> StoryPropType {
        switch value {
        case .null: return .null
        case .bool: return .boolean
        case .int: return .integer
        case .double: return .float
        case .string: return .string
        case .array, .object: return .object
        }
    }

    /// `value` as a value of this type. A value of the right kind is taken as it is; a string is
    /// read as the type says (the Android app side receives every argument as text); an integer
    /// given as `float` becomes a float. Anything else is refused.
    package func coerce(_ value: JSONValue) throws(StoryContextError) -> JSONValue {
        switch (self, value) {
        case (.boolean, .bool), (.integer, .int), (.float, .double), (.string, .string), (.null, .null), (.object, .object):
            return value
        case (.float, .int(let number)):
            return .double(Double(number))
        case (.integer, .double(let number)) where number.rounded() == number && abs(number) < 9.0e15:
            return .int(Int(number))
        case (.boolean, .string(let text)) where text == "true" || text == "false":
            return .bool(text == "true")
        case (.integer, .string(let text)) where Int(text) != nil:
            return .int(Int(text)!)
        case (.float, .string(let text)) where Double(text)?.isFinite == true:
            return .double(Double(text)!)
        case (.null, .string("null")):
            return .null
        case (.object, .string(let text)):
            guard case .object? = try? JSONValue.parse(text) else { break }
            return try StoryContextJSON.parse(text)
        default:
            break
        }
        throw .typeMismatch(type: rawValue, value: StoryContextJSON.text(value))
    }
}
