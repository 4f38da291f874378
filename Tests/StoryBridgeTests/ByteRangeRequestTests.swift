import Testing

@testable import StoryBridge

@Suite("Range header parsing (RFC 9110 §14.1.2), shared by static files and blobs")
struct ByteRangeRequestTests {
    @Test(
        "satisfiable single ranges are clamped to the size",
        arguments: [
            ("bytes=0-99", 0...99), ("bytes=100-", 100...999), ("bytes=900-5000", 900...999), ("bytes=-100", 900...999),
            ("bytes=-5000", 0...999), ("bytes=999-999", 999...999), (" bytes=10-19 ", 10...19), ("BYTES=0-0", 0...0),
        ] as [(String, ClosedRange<Int64>)])
    func satisfiable(header: String, range: ClosedRange<Int64>) {
        #expect(ByteRangeRequest(header: header, size: 1000) == .part(range))
    }

    @Test("a range starting at or past the end, or an empty suffix, is unsatisfiable (416)")
    func unsatisfiable() {
        #expect(ByteRangeRequest(header: "bytes=1000-", size: 1000) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=5000-6000", size: 1000) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=-0", size: 1000) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=-10", size: 0) == .unsatisfiable)
    }

    @Test(
        "what this host does not honour is ignored and the whole body served",
        arguments: [
            nil, "", "bytes=0-1,5-6", "items=0-5", "bytes=5-1", "bytes=a-b", "bytes=-x", "bytes=--5", "bytes=-1-2",
            "bytes=", "bytes=1", "bytes=-",
        ] as [String?])
    func whole(header: String?) {
        #expect(ByteRangeRequest(header: header, size: 1000) == .whole)
    }
}
