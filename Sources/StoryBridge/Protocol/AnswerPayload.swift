/// The `Data` of one answer, as the one serialiser (``JSONWriter``) receives it: a value to write,
/// or a value a module keeps already written. Which of the two an answer carries is part of the
/// answer itself, so replacing the value cannot leave stale bytes behind.
enum AnswerPayload: Sendable {
    /// A value, written when the answer is sent.
    case value(JSONValue)
    /// A value kept with its written form; the bytes are copied as they are.
    case encoded(EncodedJSON)

    /// The payload's value, whichever form it has.
    var value: JSONValue {
        switch self {
        case .value(let value): value
        case .encoded(let encoded): encoded.value
        }
    }

    /// Writes the payload as JSON at the end of `output`.
    func append(to output: inout [UInt8]) {
        switch self {
        case .value(let value): JSONWriter.append(value, to: &output)
        case .encoded(let encoded): output.append(contentsOf: encoded.bytes)
        }
    }
}
