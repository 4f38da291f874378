extension RangeReplaceableCollection where Element == UInt8 {
    /// Appends `value`'s bytes, least significant first (the byte order of zip records and of the
    /// verified-facts file).
    package mutating func appendLittleEndian<Value: FixedWidthInteger>(_ value: Value) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
