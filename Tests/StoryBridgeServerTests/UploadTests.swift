import Foundation
import Logging
import StoryBridge
import StoryBridgeServer
import StoryBridgeTesting
import StoryIoTCollector
import Testing

/// A data folder with `sessions` saved sessions of `slides` slide views and one custom event each.
func savedSessions(
    _ count: Int, slides: Int = 2, directory: DataDirectory? = nil, clock: any HostClock = SystemHostClock()
) async throws -> (AnalyticsStore, DataDirectory) {
    let directory =
        directory
        ?? DataDirectory(FileManager.default.temporaryDirectory.appendingPathComponent("sb-upload-\(UUID().uuidString)"))
    try directory.prepare()
    let store = AnalyticsStore(database: try StoryBridgeDatabase(file: directory.database), clock: clock)
    let stamp = RecordStamp(at: clock.now, identity: HostIdentity())
    for _ in 0..<count {
        let session = SessionRecord(
            id: UUID().uuidString.lowercased(), presentationId: 1, viewerId: "v", userId: "u", stamp: stamp,
            address: "", duration: 0, slidesCount: 0, state: .inProgress, complete: false)
        try await store.insert(session)
        for index in 0..<slides {
            try await store.insert(
                SlideViewRecord(
                    id: UUID().uuidString.lowercased(), sessionId: session.id, presentationId: 1, slideName: "s\(index).html",
                    userId: "u", duration: 3, navigation: "in", cause: "page", stamp: stamp))
        }
        try await store.upsert(
            CustomEventRecord(
                id: UUID().uuidString.lowercased(), sessionId: session.id, presentationId: 1, userId: "u", key: "k",
                value: "v", stamp: stamp))
        try await store.setState(.saved, sessionId: session.id)
    }
    return (store, directory)
}

func makeCollector(port: Int = 0, faults: CollectorFaults = CollectorFaults(), store: CollectorStore? = nil) async throws
    -> (RunningServer, CollectorStore)
{
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("sb-collector-\(UUID().uuidString).sqlite")
    let received = try store ?? CollectorStore(file: file)
    var logger = Logger(label: "collector")
    logger.logLevel = .critical
    let collector = StoryIoTCollector(
        port: port, hub: "hub1", key: "key1", secret: "s3cr3t", store: received, faults: faults, logger: logger)
    return (try await collector.start(), received)
}

/// A collector that waits `delay` milliseconds before each answer, with the faults to change it.
func slowCollector(delay: Int) async throws -> (RunningServer, CollectorStore, CollectorFaults) {
    let faults = CollectorFaults()
    faults.delay(milliseconds: delay)
    let (collector, received) = try await makeCollector(faults: faults)
    return (collector, received, faults)
}

/// With the collector's delay gone, runs `upload --once` with `arguments` (their interval left
/// out), stops the collector and returns what it received in all.
func uploadTheRest(_ arguments: [String], faults: CollectorFaults, collector: RunningServer, received: CollectorStore)
    async throws -> [CollectorStore.Message]
{
    faults.delay(milliseconds: 0)
    let again = try await runCLI(arguments.filter { $0 != "--upload-interval" && $0 != "0.05" } + ["--once"])
    #expect(again.status == 0)
    await collector.stop()
    return try received.messages()
}

func uploader(
    _ store: AnalyticsStore, port: Int, identity: HostIdentity = HostIdentity(), batch: Int = 100, maxBackoff: Double = 0.2,
    clock: any HostClock = SystemHostClock()
) -> Uploader {
    var logger = Logger(label: "uploader")
    logger.logLevel = .critical
    let settings = UploadSettings(
        endpoint: "http://127.0.0.1:\(port)", hub: "hub1", key: "key1", secret: "s3cr3t", intervalSeconds: 0.05,
        batchSize: batch, requestTimeoutSeconds: 20, maxBackoffSeconds: maxBackoff)
    return Uploader(store: store, settings: settings, identity: identity, logger: logger, clock: clock)
}

@Suite("Uploading to a StoryIoT-style collector")
struct UploadTests {
    @Test("the signature matches an independent HMAC-SHA512 (Python's hmac module)")
    func signatureMatchesPython() async throws {
        let expiration = "2026-11-22T10:00:00Z"
        let ours = StoryIoTSignature.sign(key: "key1", expiration: expiration, secret: "s3cr3t")
        let output = Pipe()
        let errors = Pipe()
        let process = try await LaunchedProcess.launch(
            URL(fileURLWithPath: "/usr/bin/env"),
            arguments: [
                "python3", "-c",
                "import hmac,hashlib,base64;print(base64.b64encode(hmac.new(b's3cr3t',b'key=key1expiration=\(expiration)',hashlib.sha512).digest()).decode().replace('/','_').replace('+','-'))",
            ], output: .pipe(output), error: .pipe(errors))
        // Read until python has exited, on a thread of its own (a browser started by another test
        // at the same moment can hold the pipe open, so end-of-file may never come).
        let (printed, _) = await readUntilExit(process, output: output, errors: errors)
        let python = String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(ours == python)
        #expect(ours.count == 88)
        #expect(StoryIoTSignature.verify(signature: ours, key: "key1", expiration: expiration, secret: "s3cr3t"))
        #expect(!StoryIoTSignature.verify(signature: ours, key: "key1", expiration: expiration, secret: "other"))
    }

    @Test("saved sessions and their records arrive, signed, with ASCII metadata headers")
    func uploads() async throws {
        let (store, _) = try await savedSessions(2)
        let (collector, received) = try await makeCollector()
        let identity = HostIdentity.testRig(
            userId: "пользователь-1", username: "Анна", device: "Стенд №1", appVersion: "1.0",
            at: (55.75, 37.62, "Москва"))
        let upload = uploader(store, port: collector.port, identity: identity)
        let pass = await upload.runOnce()
        await upload.shutdown()
        await collector.stop()
        #expect(pass.sent == 2 * 4)
        let messages = try received.messages()
        #expect(messages.count == 8)
        #expect(Set(messages.map(\.eventId)) == [UploadEventId.session, UploadEventId.slide, UploadEventId.customEvent])
        let session = try #require(messages.first { $0.eventId == UploadEventId.session })
        #expect(session.headers["s-m-uid"] == "polzovatel-1")
        #expect(session.headers["s-m-m"] == "Stend 1")
        #expect(session.headers["s-m-geo"] == "on;55.75,37.62")
        #expect(session.headers["s-m-cud"] == "c")
        #expect(session.headers["s-m-id"] == session.entityId)
        #expect(try JSONValue.parse(session.body)["state"] == 1)
        #expect(try await store.uploadStatus().sent == 8)
        #expect(try await store.uploadStatus().queued == 0)
    }

    @Test("a wrong secret is refused by the collector (401) and the record is set aside, not lost")
    func badSignature() async throws {
        let (store, _) = try await savedSessions(1, slides: 0)
        let (collector, received) = try await makeCollector()
        var logger = Logger(label: "x")
        logger.logLevel = .critical
        let wrong = Uploader(
            store: store,
            settings: UploadSettings(endpoint: "http://127.0.0.1:\(collector.port)", hub: "hub1", key: "key1", secret: "wrong"),
            identity: HostIdentity(), logger: logger)
        let pass = await wrong.runOnce()
        await wrong.shutdown()
        await collector.stop()
        #expect(pass.setAside == 2)
        #expect(try received.messages().isEmpty)
        let status = try await store.uploadStatus()
        #expect(status.setAside == 2)
        #expect(status.lastError?.contains("401") == true)
        #expect(try await store.requeue() == 2)
        #expect(try await store.uploadStatus().queued == 2)
    }

    @Test("a record the collector refuses (400) is set aside and does not block the others")
    func poisonedRecord() async throws {
        let (store, _) = try await savedSessions(3, slides: 1)
        let poisoned = try #require(try await store.dueRecords(limit: 100, now: Date()).first { $0.eventId == UploadEventId.slide })
        let faults = CollectorFaults()
        faults.reject(entityIds: [poisoned.entityId])
        let (collector, received) = try await makeCollector(faults: faults)
        let upload = uploader(store, port: collector.port)
        _ = await upload.runOnce()
        await upload.shutdown()
        await collector.stop()
        #expect(try received.messages().count == 3 * 3 - 1)
        let aside = try await store.outbox(status: .setAside)
        #expect(aside.map(\.entityId) == [poisoned.entityId])
        #expect(aside.first?.lastError?.hasPrefix("HTTP 400") == true)
    }

    @Test("5xx with Retry-After keeps a record queued until the time it names, then it goes")
    func retryAfter() async throws {
        let clock = ManualHostClock()
        let (store, _) = try await savedSessions(1, slides: 0, clock: clock)
        let faults = CollectorFaults()
        faults.fail(next: 1, status: 503, retryAfter: "30")
        let (collector, received) = try await makeCollector(faults: faults)
        let upload = uploader(store, port: collector.port, clock: clock)
        let first = await upload.runOnce()
        #expect(first.collectorFailing)
        #expect(first.retryAfter == 30)
        let retried = try #require(try await store.outbox(status: .queued).first { $0.attempts == 1 })
        #expect(retried.nextAttemptAt == clock.now.addingTimeInterval(30))
        // The other record was never tried: it goes at once, the refused one waits.
        #expect(await upload.runOnce().sent == 1)
        clock.advance(by: .seconds(29))
        #expect(await upload.runOnce().sent == 0)
        #expect(try await store.uploadStatus().queued == 1)
        clock.advance(by: .seconds(1))
        #expect(await upload.runOnce().sent == 1)
        await upload.shutdown()
        await collector.stop()
        #expect(Set(try received.messages().map(\.entityId)).contains(retried.entityId))
        #expect(try await store.uploadStatus().sent == 2)
    }

    @Test("a failing collector: the uploader retries only once the back-off has passed on its clock")
    func backoffOnTheClock() async throws {
        let clock = ManualHostClock()
        let (store, _) = try await savedSessions(1, slides: 0, clock: clock)
        let faults = CollectorFaults()
        faults.fail(next: 1, status: 503)
        let (collector, received) = try await makeCollector(faults: faults)
        // One failure: the record waits 1 s · 2^0 and the next pass 1 s · 2^1, each times 0.5–1.
        let upload = uploader(store, port: collector.port, maxBackoff: 300, clock: clock)
        let running = Task { await upload.run() }
        #expect(await clock.waitForSleepers())
        let failed = try await store.uploadStatus()
        #expect(failed.queued == 2)
        #expect(failed.lastError?.hasPrefix("HTTP 503") == true)
        let refused = try #require(try await store.outbox(status: .queued).first { $0.attempts == 1 })
        #expect(refused.nextAttemptAt >= clock.now.addingTimeInterval(0.5) && refused.nextAttemptAt <= clock.now.addingTimeInterval(1))

        // Short of the shortest pause (1 s): still asleep, nothing sent.
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleepers == 1)
        #expect(try received.messages().isEmpty)

        // Past the longest pause (2 s): the next pass sends both records, then waits its interval.
        clock.advance(by: .milliseconds(1001))
        #expect(await clock.waitForSleepers())
        running.cancel()
        await running.value
        await upload.shutdown()
        await collector.stop()
        #expect(try received.messages().count == 2)
        #expect(try await store.uploadStatus().sent == 2)
    }

    @Test("the collector down for a while, then up: everything arrives")
    func collectorDownThenUp() async throws {
        let clock = ManualHostClock()
        let (store, _) = try await savedSessions(5, clock: clock)
        // Find a free port, then leave it closed: the collector is down.
        let (probe, receivedStore) = try await makeCollector()
        let port = probe.port
        await probe.stop()
        let upload = uploader(store, port: port, batch: 7, clock: clock)
        let running = Task { await upload.run() }
        // The first pass fails and the uploader backs off.
        #expect(await clock.waitForSleepers())
        let whileDown = try await store.uploadStatus()
        #expect(whileDown.sent == 0)
        #expect(whileDown.queued == 20)
        #expect(whileDown.lastError != nil)
        let (collector, received) = try await makeCollector(port: port, store: receivedStore)
        // Each step lets any back-off (at most 0.2 s here) run out; a pass with more due goes on at once.
        var steps = 0
        while try await store.uploadStatus().sent < 20, steps < 20 {
            #expect(await clock.waitForSleepers())
            clock.advance(by: .seconds(1))
            steps += 1
        }
        running.cancel()
        await running.value
        await upload.shutdown()
        await collector.stop()
        #expect(try await store.uploadStatus().sent == 20)
        #expect(Set(try received.messages().map(\.entityId)).count == 20)
    }

    @Test("the uploader killed with SIGKILL mid-upload and restarted: nothing lost, duplicates only by id")
    func killedMidUpload() async throws {
        let (store, directory) = try await savedSessions(40)  // 160 records
        let (collector, received, faults) = try await slowCollector(delay: 30)
        let arguments = [
            "upload", "--data-dir", directory.root.path, "--upload-endpoint", "http://127.0.0.1:\(collector.port)",
            "--upload-hub", "hub1", "--upload-key", "key1", "--upload-secret", "s3cr3t", "--upload-batch-size", "10",
            "--upload-interval", "0.05",
        ]
        let process = try await LaunchedProcess.launch(try storybridgeExecutable(), arguments: arguments, output: .discard, error: .discard)
        let deadline = ContinuousClock.now + .seconds(120)
        while try received.messages().count < 40, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        process.kill()
        await waitForExit(process)
        let atKill = try received.messages().count
        #expect(atKill >= 40 && atKill < 160)

        let messages = try await uploadTheRest(arguments, faults: faults, collector: collector, received: received)
        #expect(messages.count == 160)
        #expect(Set(messages.map { "\($0.eventId):\($0.entityId)" }).count == 160)
        #expect(messages.allSatisfy { $0.deliveries <= 2 })
        #expect(try await store.uploadStatus().sent == 160)
        #expect(try await store.uploadStatus().queued == 0)
    }

    @Test("queue caps drop what does not fit, and the drops are counted")
    func caps() async throws {
        let directory = DataDirectory(FileManager.default.temporaryDirectory.appendingPathComponent("sb-caps-\(UUID().uuidString)"))
        try directory.prepare()
        let database = try StoryBridgeDatabase(file: directory.database)
        let capped = AnalyticsStore(database: database, limits: OutboxLimits(maxQueuedRecords: 5, maxQueuedBytes: 1 << 20))
        let stamp = RecordStamp(at: Date(), identity: HostIdentity())
        func saveSessionWithOneEvent() async throws {
            let session = SessionRecord(
                id: UUID().uuidString, presentationId: 1, viewerId: "v", userId: "u", stamp: stamp, address: "",
                duration: 0, slidesCount: 0, state: .inProgress, complete: false)
            try await capped.insert(session)
            try await capped.upsert(
                CustomEventRecord(
                    id: UUID().uuidString, sessionId: session.id, presentationId: 1, userId: "u", key: "k", value: "v",
                    stamp: stamp))
            try await capped.setState(.saved, sessionId: session.id)
        }
        for _ in 0..<2 { try await saveSessionWithOneEvent() }
        let status = try await capped.uploadStatus()
        #expect(status.queued == 4)
        #expect(status.droppedRecords == 0)
        try await saveSessionWithOneEvent()
        let after = try await capped.uploadStatus()
        #expect(after.queued == 5)
        #expect(after.droppedRecords == 1)
        #expect(after.droppedBytes > 0)
    }
}
