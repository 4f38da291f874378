/// A JSON value together with its wire text, for an answer that is sent far more often than it
/// changes (a mirrored session): the text is written once, when the value is made, instead of at
/// every answer.
struct EncodedJSON: Sendable {
    let value: JSONValue
    /// `value` as ``JSONWriter`` writes it (compact, keys sorted).
    let bytes: [UInt8]

    init(_ value: JSONValue) {
        self.value = value
        bytes = JSONWriter.bytes(value)
    }
}
