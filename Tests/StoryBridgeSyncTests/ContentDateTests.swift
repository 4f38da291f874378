import Foundation
import Testing

@testable import StoryBridgeSync

@Suite("Content API dates and retry policy")
struct ContentDateTests {
    @Test("dates without a zone, 0 to 7 fraction digits, read as UTC")
    func zonelessDates() throws {
        let base = try #require(ContentDate.parse("2016-12-27T11:06:14"))
        #expect(base.timeIntervalSince1970 == 1_482_836_774)
        for (text, fraction) in [
            ("2016-12-27T11:06:14.4", 0.4), ("2016-12-27T11:06:14.447", 0.447), ("2016-12-27T11:06:14.4470001", 0.4470001),
        ] {
            let date = try #require(ContentDate.parse(text), "\(text)")
            #expect(abs(date.timeIntervalSince(base) - fraction) < 1e-6)
        }
        #expect(
            ContentDate.parse("2016-12-27T13:06:14.447+02:00")?.timeIntervalSince1970
                == ContentDate.parse("2016-12-27T11:06:14.447Z")?.timeIntervalSince1970)
        for bad in ["2016-12-27", "2016-13-27T11:06:14", "2016-12-27T11:06:14.", "2016-12-27T11:06:14.447 junk", ""] {
            #expect(ContentDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("a presentation object decodes with sparse fields and string dependency ids")
    func decodesPresentation() throws {
        let json = """
            {"id": 7, "name": "Deck", "revision": 3, "created": "2016-12-27T11:06:14.447", "updated": null,
             "sourcesFolder": {"id": 70, "blobId": "ab", "fileSize": 1234, "mimeType": "application/zip", "revision": 2,
                               "created": "2016-12-27T11:06:14.4470001"},
             "mediaFiles": [{"id": 1, "revision": 1, "fileSize": 10}], "slides": [{"id": 5, "revision": 1}],
             "presentations": ["3", 4]}
            """
        let presentation = try ContentDate.decoder().decode(RemotePresentation.self, from: Data(json.utf8))
        #expect(presentation.sourcesFolder?.fileSize == 1234)
        #expect(presentation.presentations?.map(\.value) == [3, 4])
        #expect(presentation.created != nil)
    }

    @Test("Retry-After in seconds or as a date; jittered back-off stays under its ceiling")
    func retryPolicy() {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(100), maxDelay: .seconds(2))
        #expect(policy.delay(afterAttempt: 1, retryAfter: "1") == .seconds(1))
        #expect(policy.delay(afterAttempt: 1, retryAfter: "120") == .seconds(2))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(policy.delay(afterAttempt: 1, retryAfter: "Tue, 14 Nov 2023 22:13:21 GMT", now: now) == .milliseconds(1000))
        for attempt in 1...8 {
            let delay = policy.delay(afterAttempt: attempt)
            #expect(delay <= .seconds(2))
            #expect(delay > .zero)
        }
    }

    @Test("form bodies are percent-encoded")
    func formEncoding() {
        let grant = TokenGrant.password(clientId: "app", clientSecret: "s&c=r t", username: "ann@example.com", password: "pä ss")
        #expect(
            grant.formBody == "grant_type=password&client_id=app&client_secret=s%26c%3Dr+t&username=ann%40example.com&password=p%C3%A4+ss")
    }
}
