import Foundation
import StoryBridge
import StoryBridgeFleet
import Testing

/// The JSON of the kiosk–hub socket (docs/design/FLEET.md §4): each message against its golden
/// text, the beat's size cap and truncation order, and tolerance of unknown members and types.
@Suite("Fleet wire")
struct FleetWireTests {
    /// 2026-12-01T09:30:00.123Z
    static let sentAt = Date(timeIntervalSince1970: 1_796_117_400.123)

    /// Whether `data` and `golden` are the same JSON (members in any order, numbers by value).
    private func sameJSON(_ data: Data, _ golden: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let encoded = try JSONSerialization.jsonObject(with: data) as? NSDictionary
        let expected = try JSONSerialization.jsonObject(with: Data(golden.utf8)) as? NSDictionary
        #expect(encoded != nil && encoded == expected, "\(String(decoding: data, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    static func fullBeat() -> Beat {
        Beat(
            seq: 1841, sentAt: sentAt, instance: "5b0c9f4e", uptimeSeconds: 11959, version: "0.32.0", name: "lobby-1",
            labels: ["site": "berlin", "floor": "1"],
            decks: [
                .init(id: 12, name: "Cardio 2027", revision: 7, pinnedRevision: nil, state: "ready"),
                .init(id: 13, name: "Training", revision: 3, pinnedRevision: 3, state: "update available"),
            ],
            viewers: .init(
                count: 1,
                list: [
                    .init(
                        viewer: "v-8c2d", connected: true, presentation: 12, slide: "products.html",
                        since: Date(timeIntervalSince1970: 1_796_117_292))
                ]),
            analytics: .init(queued: 14, oldestAgeSeconds: 312),
            sync: .init(
                lastRunAt: Date(timeIntervalSince1970: 1_796_116_503), result: "failed", exitStatus: 69,
                summary: "the server could not be reached", failingSince: Date(timeIntervalSince1970: 1_796_114_702),
                nextRunAt: Date(timeIntervalSince1970: 1_796_117_470)),
            disk: .init(freeBytes: 41_234_567_168, minimumFreeBytes: 524_288_000),
            memory: .init(residentBytes: 61_440_000, availableBytes: 1_523_000_000),
            health: .init(status: "unhealthy", problems: ["sync failing"]),
            schedule: .init(presentation: 12, slide: nil, source: "weekly", until: Date(timeIntervalSince1970: 1_796_122_800)),
            kiosk: .init(attached: true, mode: "kiosk", browserRestarts: 0, idleResets: 3, lastInputSecondsAgo: 40),
            log: .init(
                entries: [.init(at: Date(timeIntervalSince1970: 1_796_116_503), level: "warning", message: "scheduled sync: down")],
                dropped: 0),
            hubUnreachable: .init(since: Date(timeIntervalSince1970: 1_796_116_971), seconds: 429, attempts: 9),
            figures: ["storybridge_connected_viewers": 1, "storybridge_requests_total": 12040],
            checkpoint: [
                "signed": ["type": "storybridge-checkpoint", "sequence": 41, "position": 41000],
                "signatures": [["keyId": "x2tlkrvgmune3ngcza7rm24jdm", "sig": "c2ln"]],
            ])
    }

    @Test("a full beat encodes as the documented JSON, type first, dates with milliseconds")
    func beatGolden() throws {
        let data = try FleetWire.encode(.beat(Self.fullBeat()))
        #expect(String(decoding: data.prefix(15), as: UTF8.self) == "{\"type\":\"beat\",")
        try sameJSON(
            data,
            """
            {"type": "beat", "seq": 1841, "sentAt": "2026-12-01T09:30:00.123Z", "instance": "5b0c9f4e", "uptimeSeconds": 11959,
             "version": "0.32.0", "name": "lobby-1", "labels": {"site": "berlin", "floor": "1"},
             "decks": [{"id": 12, "name": "Cardio 2027", "revision": 7, "pinnedRevision": null, "state": "ready"},
                       {"id": 13, "name": "Training", "revision": 3, "pinnedRevision": 3, "state": "update available"}],
             "viewers": {"count": 1, "list": [{"viewer": "v-8c2d", "connected": true, "presentation": 12, "slide": "products.html",
                                               "since": "2026-12-01T09:28:12.000Z"}]},
             "analytics": {"queued": 14, "oldestAgeSeconds": 312},
             "sync": {"lastRunAt": "2026-12-01T09:15:03.000Z", "result": "failed", "exitStatus": 69,
                      "summary": "the server could not be reached", "failingSince": "2026-12-01T08:45:02.000Z",
                      "nextRunAt": "2026-12-01T09:31:10.000Z"},
             "disk": {"freeBytes": 41234567168, "minimumFreeBytes": 524288000},
             "memory": {"residentBytes": 61440000, "availableBytes": 1523000000},
             "health": {"status": "unhealthy", "problems": ["sync failing"]},
             "schedule": {"presentation": 12, "source": "weekly", "until": "2026-12-01T11:00:00.000Z"},
             "kiosk": {"attached": true, "mode": "kiosk", "browserRestarts": 0, "idleResets": 3, "lastInputSecondsAgo": 40},
             "log": {"entries": [{"at": "2026-12-01T09:15:03.000Z", "level": "warning", "message": "scheduled sync: down", "count": 1}],
                     "dropped": 0},
             "hubUnreachable": {"since": "2026-12-01T09:22:51.000Z", "seconds": 429, "attempts": 9},
             "figures": {"storybridge_connected_viewers": 1, "storybridge_requests_total": 12040},
             "checkpoint": {"signed": {"type": "storybridge-checkpoint", "sequence": 41, "position": 41000},
                            "signatures": [{"keyId": "x2tlkrvgmune3ngcza7rm24jdm", "sig": "c2ln"}]},
             "truncated": false}
            """)
        // Decoded and encoded again: the same JSON (dates to the millisecond).
        guard case .beat(let decoded) = try FleetWire.decode(data) else {
            Issue.record("not a beat")
            return
        }
        #expect(abs(decoded.sentAt.timeIntervalSince(Self.sentAt)) < 0.001)
        #expect(decoded.decks == Self.fullBeat().decks && decoded.sync == Self.fullBeat().sync && decoded.log == Self.fullBeat().log)
        #expect(decoded.checkpoint == Self.fullBeat().checkpoint)
        try sameJSON(try FleetWire.encode(.beat(decoded)), String(decoding: data, as: UTF8.self))
    }

    @Test("a beat with nothing configured writes its sections as null")
    func emptyBeatGolden() throws {
        let beat = Beat(seq: 1, sentAt: Self.sentAt, instance: "i", uptimeSeconds: 0, version: "0.1.0", name: "k")
        try sameJSON(
            try FleetWire.encode(.beat(beat)),
            """
            {"type": "beat", "seq": 1, "sentAt": "2026-12-01T09:30:00.123Z", "instance": "i", "uptimeSeconds": 0, "version": "0.1.0",
             "name": "k", "labels": {}, "decks": null, "viewers": null, "analytics": null, "sync": null, "disk": null,
             "memory": null, "health": null, "schedule": null, "kiosk": null, "log": {"entries": [], "dropped": 0},
             "hubUnreachable": null, "figures": null, "checkpoint": null, "truncated": false}
            """)
    }

    @Test("challenge, hello, welcome, ack, bye, screenshot, screenshotResult and beatNow match their golden JSON and decode back")
    func otherMessagesGolden() throws {
        let key = try HostKey(rawRepresentation: Data(repeating: 1, count: 32))
        let hello = KioskHello.signed(
            by: key, nonce: "q3J0", hubOrigin: "https://hub.site.lan:8095", instance: "5b0c9f4e", name: "lobby-1",
            labels: ["site": "berlin"], version: "0.32.0", intervalSeconds: 30, startedAt: Self.sentAt, timeZone: "Europe/Berlin",
            schedule: nil, metricsURL: "http://10.20.0.17:9180/__storybridge/metrics")
        let cases: [(FleetMessage, String)] = [
            (
                .challenge(.init(nonce: "q3J0", hub: "storybridge 0.32.0", serverTime: Self.sentAt)),
                #"{"type": "challenge", "nonce": "q3J0", "hub": "storybridge 0.32.0", "serverTime": "2026-12-01T09:30:00.123Z"}"#
            ),
            (
                .hello(hello),
                """
                {"type": "hello", "protocol": 1, "hostId": "\(key.hostId)", "publicKey": "\(Base64URL.encode(key.publicKey))",
                 "signature": "\(hello.signature)", "instance": "5b0c9f4e", "name": "lobby-1", "labels": {"site": "berlin"},
                 "version": "0.32.0", "intervalSeconds": 30, "startedAt": "2026-12-01T09:30:00.123Z", "timeZone": "Europe/Berlin",
                 "schedule": null, "metricsURL": "http://10.20.0.17:9180/__storybridge/metrics"}
                """
            ),
            (.welcome(.init(device: "d_k3x9qv2m4a")), #"{"type": "welcome", "device": "d_k3x9qv2m4a"}"#),
            (.ack(.init(seq: 1841)), #"{"type": "ack", "seq": 1841}"#),
            (.bye(.init()), #"{"type": "bye", "reason": "shutdown"}"#),
            (.screenshot(.init(id: "s1")), #"{"type": "screenshot", "id": "s1"}"#),
            (
                .screenshotResult(.init(id: "s1", width: 1920, height: 1080, takenAt: Self.sentAt)),
                #"{"type": "screenshotResult", "id": "s1", "width": 1920, "height": 1080, "takenAt": "2026-12-01T09:30:00.123Z"}"#
            ),
            (
                .screenshotResult(.init(id: "s2", error: "no storybridge kiosk is attached")),
                #"{"type": "screenshotResult", "id": "s2", "error": "no storybridge kiosk is attached"}"#
            ),
            (.beatNow(.init(id: "b1")), #"{"type": "beatNow", "id": "b1"}"#),
        ]
        for (message, golden) in cases {
            let data = try FleetWire.encode(message)
            try sameJSON(data, golden)
            try sameJSON(try FleetWire.encode(FleetWire.decode(data)), golden)
            #expect(try FleetWire.decode(data).type == message.type)
        }
    }

    @Test("a hello proves the key: its host id and signature check out for the nonce and origin it was made for only")
    func helloSignature() throws {
        let key = HostKey()
        let hello = KioskHello.signed(
            by: key, nonce: "n1", hubOrigin: "http://127.0.0.1:8095", instance: "i", name: "k", labels: [:], version: "0.1.0",
            intervalSeconds: 30, startedAt: Self.sentAt, timeZone: "UTC")
        #expect(hello.refusal(nonce: "n1", hubOrigin: "http://127.0.0.1:8095") == nil)
        #expect(hello.refusal(nonce: "n2", hubOrigin: "http://127.0.0.1:8095") == "the signature does not verify")
        #expect(hello.refusal(nonce: "n1", hubOrigin: "http://other:8095") == "the signature does not verify")
        var foreign = hello
        foreign.hostId = HostKey().hostId
        #expect(foreign.refusal(nonce: "n1", hubOrigin: "http://127.0.0.1:8095") == "the host id is not the fingerprint of the public key")
    }

    @Test("unknown members are ignored, an unknown type decodes as unknown, a frame that is not a message is refused")
    func tolerance() throws {
        let ack = #"{"type": "ack", "seq": 3, "future": {"nested": [1, 2]}, "also": "x"}"#
        #expect(try FleetWire.decode(Data(ack.utf8)) == .ack(.init(seq: 3)))
        let beat = #"{"type": "beat", "seq": 2, "sentAt": "2026-12-01T09:30:00Z", "instance": "i", "newSection": {"a": 1}}"#
        guard case .beat(let decoded) = try FleetWire.decode(Data(beat.utf8)) else {
            Issue.record("not a beat")
            return
        }
        #expect(decoded.seq == 2 && decoded.decks == nil && decoded.log == Beat.Log() && !decoded.truncated)
        #expect(decoded.sentAt == Date(timeIntervalSince1970: 1_796_117_400))
        #expect(try FleetWire.decode(Data(#"{"type": "reboot", "when": "now"}"#.utf8)) == .unknown(type: "reboot"))
        #expect(throws: FleetWireError.self) { try FleetWire.decode(Data("[1]".utf8)) }
        #expect(throws: FleetWireError.self) { try FleetWire.decode(Data(#"{"seq": 1}"#.utf8)) }
        #expect(throws: FleetWireError.self) { try FleetWire.decode(Data(#"{"type": "ack"}"#.utf8)) }
        #expect(throws: FleetWireError.tooLarge(bytes: 20, limit: 10)) {
            try FleetWire.decode(Data(repeating: 0x20, count: 20), limit: 10)
        }
    }

    @Test("each refusal says why: not a message, a type whose shape does not fit, a beat longer than a kiosk makes")
    func refusals() throws {
        #expect(throws: FleetWireError.malformed(#"not a JSON object with a string member "type""#)) {
            try FleetWire.decode(Data(#"{"type": 7}"#.utf8))
        }
        #expect(throws: FleetWireError.malformed(#"not a JSON object with a string member "type""#)) {
            try FleetWire.decode(Data("{".utf8))
        }
        #expect(throws: FleetWireError.malformed(#"a ack message that does not fit its shape: the member "seq" is missing"#)) {
            try FleetWire.decode(Data(#"{"type": "ack"}"#.utf8))
        }
        #expect(throws: FleetWireError.malformed("a beat message that does not fit its shape: sentAt: 'yesterday' is not an ISO 8601 date"))
        {
            try FleetWire.decode(Data(#"{"type": "beat", "seq": 1, "sentAt": "yesterday", "instance": "i"}"#.utf8))
        }
        // The hub stores a beat's text as it came, so a beat may be no longer than a kiosk makes one.
        let padding = String(repeating: "x", count: FleetWire.maxBeatBytes)
        let long = #"{"type": "beat", "seq": 1, "sentAt": "2026-12-01T09:30:00Z", "instance": "i", "pad": "\#(padding)"}"#
        #expect(throws: FleetWireError.tooLarge(bytes: long.utf8.count, limit: FleetWire.maxBeatBytes)) {
            try FleetWire.decode(Data(long.utf8))
        }
    }

    @Test("wire dates read arithmetically are the moments Foundation's parser reads, and other forms still parse")
    func wireDates() throws {
        let foundation = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var generator = SystemRandomNumberGenerator()
        var moments: [Int64] = [0, 951_782_400_000, 951_868_799_999, 4_107_542_399_999, 253_402_300_799_999, -11_676_096_000_000]
        for _ in 0..<2000 { moments.append(Int64.random(in: -11_676_096_000_000...253_402_300_799_999, using: &generator)) }
        for milliseconds in moments {
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = FleetWire.format(date)
            #expect(UTCTime.millisecondsSince1970(iso8601: text) == milliseconds, "\(text)")
            let parsed = try #require(FleetWire.parseDate(text))
            #expect(abs(parsed.timeIntervalSince(try foundation.parse(text))) < 0.000_5, "\(text)")
            #expect(FleetWire.format(parsed) == text)
        }
        #expect(UTCTime.millisecondsSince1970(iso8601: "2026-12-01T09:30:00Z") == 1_796_117_400_000)
        // Not the wire's own form: left to Foundation, which still reads them.
        for text in ["2026-12-01T10:30:00+01:00", "2026-12-01T09:30:00.1Z", "2026-12-01T09:30:00.123456Z"] {
            #expect(UTCTime.millisecondsSince1970(iso8601: text) == nil)
            #expect(FleetWire.parseDate(text) != nil, "\(text)")
        }
        for text in [
            "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-12-01T24:00:00Z", "2026-12-01 09:30:00Z", "2026-12-0１T09:30:00Z",
        ] {
            #expect(UTCTime.millisecondsSince1970(iso8601: text) == nil, "\(text)")
        }
        #expect(UTCTime.millisecondsSince1970(iso8601: "2024-02-29T23:59:59.999Z") == 1_709_251_199_999)
    }

    @Test("a beat over 64 KiB loses viewers first, then log entries, then figures, and says truncated")
    func truncationOrder() throws {
        var beat = Self.fullBeat()
        let long = String(repeating: "x", count: 290)
        beat.viewers = .init(
            count: 32,
            list: (0..<32).map { .init(viewer: "v-\($0)-\(long)", connected: true, presentation: 12, slide: long, since: nil) })
        beat.log = .init(entries: (0..<20).map { .init(at: Self.sentAt, level: "warning", message: "\($0) \(long)") })
        beat.figures = Dictionary(uniqueKeysWithValues: (0..<800).map { ("storybridge_figure_\($0)_\(long.prefix(60))", Double($0)) })
        let full = try FleetWire.encode(.beat(beat))
        #expect(full.count > FleetWire.maxBeatBytes)

        // Fits as it is: unchanged.
        let roomy = try FleetWire.encodeBeat(beat, limit: full.count)
        #expect(roomy.beat == beat && !roomy.beat.truncated)

        // A little too big: some viewers go, nothing else.
        let viewersOnly = try FleetWire.encodeBeat(beat, limit: full.count - 1000)
        #expect(viewersOnly.beat.truncated)
        #expect(viewersOnly.beat.viewers!.list.count < 32 && viewersOnly.beat.viewers!.list.count > 0)
        #expect(viewersOnly.beat.viewers!.count == 32)
        #expect(viewersOnly.beat.log == beat.log && viewersOnly.beat.figures == beat.figures)
        #expect(viewersOnly.data.count <= full.count - 1000)

        // The 64 KiB cap: every viewer and log entry go (counted as dropped), then the figures.
        let capped = try FleetWire.encodeBeat(beat)
        #expect(capped.data.count <= FleetWire.maxBeatBytes)
        #expect(capped.beat.truncated)
        #expect(capped.beat.viewers!.list.isEmpty && capped.beat.viewers!.count == 32)
        #expect(capped.beat.log.entries.isEmpty && capped.beat.log.dropped == 20)
        #expect(capped.beat.figures == nil)
        guard case .beat(let decoded) = try FleetWire.decode(capped.data) else {
            Issue.record("not a beat")
            return
        }
        try sameJSON(try FleetWire.encode(.beat(decoded)), String(decoding: capped.data, as: UTF8.self))

        // Still too big without them: refused.
        #expect(throws: FleetWireError.self) { try FleetWire.encodeBeat(beat, limit: 200) }
    }
}
