/// Comparison of secrets whose time does not depend on where they first differ.
package enum ConstantTime {
    /// Whether `left` and `right` hold the same bytes; for equal lengths, every byte is looked at.
    package static func equal(_ left: some Collection<UInt8>, _ right: some Collection<UInt8>) -> Bool {
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Whether the UTF-8 bytes of `left` and `right` are the same.
    package static func equal(_ left: String, _ right: String) -> Bool {
        equal(Array(left.utf8), Array(right.utf8))
    }
}
