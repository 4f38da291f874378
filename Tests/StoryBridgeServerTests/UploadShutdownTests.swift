import Foundation
import StoryBridge
import StoryBridgeTesting
import StoryIoTCollector
import Testing

@Suite("Uploading as a service of the service group")
struct UploadShutdownTests {
    @Test("storybridge upload stops on SIGTERM with exit 0 after its batch in flight: nothing lost, nothing sent twice")
    func sigtermFinishesTheBatch() async throws {
        let (store, directory) = try await savedSessions(40)  // 160 records
        let (collector, received, faults) = try await slowCollector(delay: 30)
        let batchSize = 10
        let arguments = [
            "upload", "--data-dir", directory.root.path, "--upload-endpoint", "http://127.0.0.1:\(collector.port)",
            "--upload-hub", "hub1", "--upload-key", "key1", "--upload-secret", "s3cr3t", "--upload-batch-size",
            String(batchSize), "--upload-interval", "0.05",
        ]
        let process = try await LaunchedProcess.launch(try storybridgeExecutable(), arguments: arguments, output: .discard, error: .discard)
        // Stop it in the middle of a batch: 25 records in, with 30 ms per record.
        let deadline = ContinuousClock.now + .seconds(120)
        while try received.messages().count < 25, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        process.send(SIGTERM)
        #expect(await waitForExit(process), "upload did not stop within a minute of SIGTERM")
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)

        let atStop = try received.messages().count
        let status = try await store.uploadStatus()
        #expect(atStop >= 25 && atStop < 160, "stopped before the queue was empty")
        #expect(atStop % batchSize == 0, "the batch in flight was finished, not cut")
        #expect(status.sent == atStop, "every record the collector took is marked sent")
        #expect(status.queued == 160 - atStop, "the rest is still queued")
        #expect(status.lastError == nil, "no request was abandoned and retried")

        let messages = try await uploadTheRest(arguments, faults: faults, collector: collector, received: received)
        #expect(messages.count == 160)
        #expect(messages.allSatisfy { $0.deliveries == 1 })
        #expect(try await store.uploadStatus().sent == 160)
    }

    @Test("storybridge serve with an uploader stops on SIGTERM with exit 0; what the collector took is marked sent")
    func serveSigterm() async throws {
        let (store, directory) = try await savedSessions(20)  // 80 records
        let (collector, received, _) = try await slowCollector(delay: 20)
        let serve = try await ServeProcess.start([
            demoFolder.path, "--port", "0", "--no-watch", "--log-level", "warning", "--data-dir", directory.root.path,
            "--upload-endpoint", "http://127.0.0.1:\(collector.port)", "--upload-hub", "hub1", "--upload-key", "key1",
            "--upload-secret", "s3cr3t", "--upload-batch-size", "10", "--upload-interval", "0.05",
        ])
        let deadline = ContinuousClock.now + .seconds(120)
        while try received.messages().count < 15, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        serve.process.send(SIGTERM)
        #expect(await waitForExit(serve.process), "serve did not stop within a minute of SIGTERM")
        #expect(serve.process.terminationReason == .exit)
        #expect(serve.process.terminationStatus == 0)
        await collector.stop()
        let atStop = try received.messages().count
        #expect(atStop >= 15)
        #expect(try await store.uploadStatus().sent == atStop)
        // The rest is still queued, with the audit checkpoint the clean stop signed (issue #44).
        let queued = try await store.outbox(status: .queued)
        #expect(queued.filter { $0.eventId != AuditCheckpoint.eventId }.count == 80 - atStop)
        #expect(queued.filter { $0.eventId == AuditCheckpoint.eventId }.count == 1, "the checkpoint of the clean stop")
        #expect(try await store.uploadStatus().lastError == nil)
    }
}
