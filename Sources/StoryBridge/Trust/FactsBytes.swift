/// The binary form of a verified-facts file (``VerifiedFacts/encoded()``): unsigned 64-bit
/// little-endian integers, and strings as such an integer (their UTF-8 length) followed by their
/// bytes. Written and read in one pass, with every read bounds-checked: a short or damaged file
/// reads as nothing, never out of bounds.
enum FactsBytes {
    /// Appends integers and strings to a byte array.
    struct Writer {
        private(set) var bytes: [UInt8] = []

        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        mutating func append(_ raw: [UInt8]) { bytes.append(contentsOf: raw) }

        mutating func append(_ value: UInt64) { bytes.appendLittleEndian(value) }

        mutating func append(string: String) {
            var string = string
            string.withUTF8 { utf8 in
                append(UInt64(utf8.count))
                bytes.append(contentsOf: utf8)
            }
        }
    }

    /// Reads integers and strings from a buffer, front to back.
    struct Reader {
        private let raw: UnsafeRawBufferPointer
        private var offset = 0

        init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

        /// Whether every byte has been read.
        var isAtEnd: Bool { offset == raw.count }

        /// Consumes `expected` when the next bytes are exactly it.
        mutating func take(_ expected: [UInt8]) -> Bool {
            guard raw.count - offset >= expected.count else { return false }
            for (index, byte) in expected.enumerated() where raw[offset + index] != byte { return false }
            offset += expected.count
            return true
        }

        /// The next integer; nil past the end.
        mutating func integer() -> UInt64? {
            guard raw.count - offset >= 8 else { return nil }
            let value = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
            return UInt64(littleEndian: value)
        }

        /// The next string; nil past the end or for bytes that are not UTF-8.
        mutating func string() -> String? {
            guard let length = integer(), length <= UInt64(raw.count - offset) else { return nil }
            let slice = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + Int(length))])
            offset += Int(length)
            return String(validating: slice, as: UTF8.self)
        }
    }
}
