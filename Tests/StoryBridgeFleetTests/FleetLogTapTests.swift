import Foundation
import Logging
import StoryBridgeFleet
import Testing

/// ``FleetLogTap``: warnings and errors since the last beat.
@Suite("Fleet log tap")
struct FleetLogTapTests {
    @Test("keeps warning and above, merges repeats with a count, caps a beat at 20 entries, and starts empty after take()")
    func tap() {
        let tap = FleetLogTap(clock: { Date(timeIntervalSince1970: 1_800_000_000) })
        let logger = Logger(label: "test") { label in tap.handler(label: label) }
        logger.info("not kept")
        logger.warning("disk low")
        logger.warning("disk low")
        logger.error("sync failed")
        let first = tap.take()
        #expect(first.entries.map(\.message) == ["disk low", "sync failed"])
        #expect(first.entries.map(\.count) == [2, 1])
        #expect(first.entries.map(\.level) == ["warning", "error"])
        #expect(tap.take() == Beat.Log())
        for index in 0..<60 { logger.warning("w\(index)") }
        let capped = tap.take()
        #expect(capped.entries.count == 20 && capped.dropped == 40)
        #expect(capped.entries.last?.message == "w59")
    }
}
