import Synchronization

/// A JSON value together with its wire text, for an answer that is sent far more often than it
/// changes (a mirrored session, the slide shown): the text is written once, when the value is
/// made, instead of at every answer.
struct EncodedJSON: Sendable {
    let value: JSONValue
    /// `value` as ``JSONWriter`` writes it (compact, keys sorted).
    let bytes: [UInt8]

    init(_ value: JSONValue) {
        self.value = value
        bytes = JSONWriter.bytes(value)
    }
}

/// An answer that depends on one value (its key) only, written once per value of the key and kept
/// until the key changes.
final class WrittenAnswer<Key: Equatable & Sendable>: Sendable {
    private let kept = Mutex<(key: Key, answer: EncodedJSON)?>(nil)

    /// The answer for `key`, written by `make` when the kept one is for another key (two first
    /// calls at once may both write it; one is kept).
    func answer(for key: Key, _ make: (Key) -> JSONValue) -> EncodedJSON {
        if let kept = kept.withLock({ $0 }), kept.key == key { return kept.answer }
        let answer = EncodedJSON(make(key))
        kept.withLock { $0 = (key, answer) }
        return answer
    }
}
