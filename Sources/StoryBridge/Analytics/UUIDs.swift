/// Record ids: lower-case random (version 4) UUIDs, made from the system's random generator
/// directly (Foundation's `UUID()` opens `/dev/urandom` for every id on Linux, a file open per
/// record written).
enum UUIDs {
    static func make() -> String {
        var random = SystemRandomNumberGenerator()
        var high: UInt64 = random.next()
        var low: UInt64 = random.next()
        high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 4122 variant
        let hex = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, half) in [high, low].enumerated() {
            for nibble in 0..<16 {
                let position = index * 16 + nibble
                if position == 8 || position == 12 || position == 16 || position == 20 { text.append(UInt8(ascii: "-")) }
                text.append(hex[Int((half >> UInt64(60 - nibble * 4)) & 0xF)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
