import Foundation
import Testing

@testable import StoryBridge

@Suite("record ids and timestamps")
struct RecordFormatTests {
    @Test("timestamps written digit by digit equal Foundation's ISO-8601 text, and read back to the same text")
    func timestampsMatchTheFormatter() throws {
        var random = SystemRandomNumberGenerator()
        var moments: [Double] = [
            0, -1, 1, 999, -999, 86_399_999, -86_400_000, 951_782_400_000,  // 2000-02-29
            4_107_542_399_999, -2_208_988_800_000, 1_795_000_000_000.4, 1_795_000_000_999.6,
        ]
        for _ in 0..<5_000 {
            // 1800 to 2300, with fractions of a millisecond to exercise the rounding.
            moments.append(Double(Int64.random(in: -5_364_662_400_000...10_413_792_000_000, using: &random)) + Double.random(in: 0..<1))
        }
        for milliseconds in moments {
            let date = Date(timeIntervalSince1970: milliseconds / 1000)
            let text = AnalyticsFormat.timestamp(date)
            #expect(text == AnalyticsFormat.formattedTimestamp(milliseconds: (date.timeIntervalSince1970 * 1000).rounded()))
            let back = try #require(AnalyticsFormat.date(text))
            #expect(AnalyticsFormat.timestamp(back) == text)
        }
    }

    @Test("record ids are distinct lower-case version-4 UUIDs")
    func recordIds() throws {
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let id = UUIDs.make()
            #expect(id.count == 36)
            let parsed = try #require(UUID(uuidString: id))
            #expect(parsed.uuidString.lowercased() == id)
            #expect(Array(id)[14] == "4")
            #expect("89ab".contains(Array(id)[19]))
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
    }
}
