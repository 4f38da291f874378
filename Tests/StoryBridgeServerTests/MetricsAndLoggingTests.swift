import Foundation
import Logging
import StoryBridge
import StoryBridgeTesting
import Testing

@testable import StoryBridgeServer

/// The value of one Prometheus sample line (`name{labels} value`), or nil when absent.
private func sample(_ text: String, _ series: String) -> Double? {
    for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}

/// Polls the metrics page until `condition` holds (or 20 s pass) and returns the last text.
private func metrics(_ host: TestHost, until condition: (String) -> Bool) async throws -> String {
    let until = ContinuousClock.now + .seconds(20)
    while true {
        let text = String(decoding: try await httpGet(host.baseURL + "/__storybridge/metrics").body, as: UTF8.self)
        if condition(text) || ContinuousClock.now > until { return text }
        try await Task.sleep(for: .milliseconds(50))
    }
}

@Suite("Metrics and logs")
struct MetricsAndLoggingTests {
    @Test("Prometheus metrics count requests by command and status, time them, and track viewers and the upload queue")
    func prometheus() async throws {
        let host = try await TestHost.start(presentationFolders: [demoFolder])
        let viewer = try await host.connectViewer(slide: "index.html")
        for _ in 0..<3 { _ = try await viewer.request("getAppInfo") }
        _ = try await viewer.request("noSuchCommand")
        var text = try await metrics(host) { sample($0, "storybridge_connected_viewers") == 1 }
        #expect(sample(text, #"storybridge_requests_total{command="getAppInfo",status="200"}"#) == 3)
        #expect(sample(text, #"storybridge_requests_total{command="(unknown)",status="400"}"#) == 1)
        #expect(!text.contains("noSuchCommand"))
        #expect(sample(text, #"storybridge_request_duration_seconds_count{command="getAppInfo"}"#) == 3)
        #expect(text.contains(#"storybridge_request_duration_seconds_bucket{command="getAppInfo",le="0.001"}"#))
        #expect(sample(text, #"storybridge_request_duration_seconds_bucket{command="getAppInfo",le="+Inf"}"#) == 3)
        #expect((sample(text, #"storybridge_request_duration_seconds_sum{command="getAppInfo"}"#) ?? 0) > 0)
        #expect(text.components(separatedBy: "# TYPE storybridge_request_duration_seconds histogram").count == 2)
        #expect(sample(text, "storybridge_connected_viewers") == 1)
        #expect(sample(text, "storybridge_upload_queue_depth") == 0)

        // Saving the session queues its records: the queue depth follows the database.
        _ = try await viewer.request("setCustomEvent", data: ["key": "k", "value": "v"])
        let saved = try await viewer.request("closePresentation", data: ["mode": 1])
        #expect(saved.status == .success)
        text = try await metrics(host) { (sample($0, "storybridge_upload_queue_depth") ?? 0) > 0 }
        #expect((sample(text, "storybridge_upload_queue_depth") ?? 0) >= 2)

        await viewer.close()
        text = try await metrics(host) { sample($0, "storybridge_connected_viewers") == 0 }
        #expect(sample(text, "storybridge_connected_viewers") == 0)

        // An uploader given the metrics counts its failed attempts against an unreachable collector.
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let closedPort = refusing.port
        var logger = Logger(label: "uploader")
        logger.logLevel = .critical
        let settings = UploadSettings(
            endpoint: "http://127.0.0.1:\(closedPort)", hub: "hub1", key: "key1", secret: "s3cr3t", intervalSeconds: 0.05,
            batchSize: 10, requestTimeoutSeconds: 5, maxBackoffSeconds: 0.2)
        let uploader = Uploader(
            store: host.runtime.analytics, settings: settings, identity: HostIdentity(), logger: logger, metrics: host.metrics.factory)
        let pass = await uploader.runOnce()
        #expect(pass.collectorFailing)
        await uploader.shutdown()
        text = try await metrics(host) { sample($0, "storybridge_upload_failures_total") == 1 }
        #expect(sample(text, "storybridge_upload_failures_total") == 1)
        #expect(sample(text, #"storybridge_upload_records_total{outcome="retried"}"#) == 1)
        await host.stop()
    }

    @Test("the request-duration histogram counts each duration in its bucket, cumulatively, with escaped labels")
    func latencyHistogram() {
        let histogram = LatencyHistogram(bounds: [.microseconds(100), .milliseconds(1)])
        for nanoseconds: Int64 in [50_000, 100_000, 100_001, 900_000, 5_000_000] { histogram.recordNanoseconds(nanoseconds) }
        var text = ""
        histogram.emit(name: "d", labels: "command=\"\(LatencyHistogram.escapeLabel("a\"b\\c\nd"))\"", into: &text)
        let labels = #"command="a\"b\\c\nd""#
        #expect(sample(text, "d_bucket{\(labels),le=\"0.0001\"}") == 2)
        #expect(sample(text, "d_bucket{\(labels),le=\"0.001\"}") == 4)
        #expect(sample(text, "d_bucket{\(labels),le=\"+Inf\"}") == 5)
        #expect(sample(text, "d_count{\(labels)}") == 5)
        #expect(sample(text, "d_sum{\(labels)}") == 0.006150001)
    }

    @Test("log lines: text and JSON formats, metadata kept, long values cut")
    func lineFormats() throws {
        let date = Date(timeIntervalSince1970: 1_790_000_000)
        let text = LineLogHandler.line(
            level: .debug, label: "storybridge", message: "request", metadata: ["command": "go", "data": "a b"], format: .text,
            at: date)
        #expect(text == "2026-09-21T14:13:20.000Z debug storybridge: request command=go data=\"a b\"")
        let huge = String(repeating: "y", count: 50_000)
        let json = LineLogHandler.line(
            level: .warning, label: "storybridge", message: "refused", metadata: ["payload": .string(huge)], format: .json, at: date)
        #expect(json.utf8.count < 1_000)
        let parsed = try JSONValue.parse(json)
        #expect(parsed["level"] == "warning")
        #expect(parsed["message"] == "refused")
        #expect(parsed["metadata"]?["payload"]?.stringValue?.hasSuffix("(50000 bytes)") == true)
    }

    @Test("serve --log-level debug --log-format json: one JSON line per request, no payload over the limit")
    func serveLogsRequests() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sb-logs-\(UUID().uuidString)")
        let serve = try await ServeProcess.start([
            demoFolder.path, "--port", "0", "--data-dir", data.path, "--log-level", "debug", "--log-format", "json", "--no-watch",
        ])
        #expect(serve.output.contains("Live reload: off"))
        let viewer = try await serve.connectViewer(viewerId: "logged")
        _ = try await viewer.request("getAppInfo")
        _ = try await viewer.request("setCustomEvent", data: ["key": "big", "value": .string(String(repeating: "z", count: 100_000))])
        _ = try await viewer.request("noSuchCommand")
        await viewer.close()
        // Read off the wire: the WebSocket client library can miss a close that follows the 101 at once.
        let intruder = try await RawHTTP.webSocketRefusal(
            port: serve.port, "/__storybridge/ws?viewer=intruder&presentation=1&slide=index.html&token=wrong")
        #expect(intruder?.code == 4403)
        #expect(await serve.interrupt() == 0)
        let lines = serve.errors.split(separator: "\n")
        let entries = try lines.map { try JSONValue.parse(String($0)) }
        let requests = entries.filter { $0["message"] == "request" }
        let appInfo = try #require(requests.first { $0["metadata"]?["command"] == "getAppInfo" })
        #expect(appInfo["level"] == "debug")
        #expect(appInfo["metadata"]?["status"] == "Success")
        #expect(appInfo["metadata"]?["code"] == "200")
        #expect(appInfo["metadata"]?["viewer"] == "logged")
        #expect(appInfo["metadata"]?["ms"] != nil)
        let big = try #require(requests.first { $0["metadata"]?["command"] == "setCustomEvent" })
        #expect(big["metadata"]?["data"]?.stringValue?.contains("bytes)") == true)
        #expect(lines.allSatisfy { $0.utf8.count < 4_000 })
        // Refusals are warnings: a failed request that points at a defect, a refused WebSocket.
        let failed = try #require(entries.first { $0["message"] == "request failed" })
        #expect(failed["level"] == "warning")
        #expect(failed["metadata"]?["command"] == "noSuchCommand")
        #expect(failed["metadata"]?["code"] == "400")
        let refused = try #require(entries.first { $0["message"] == "WebSocket refused" })
        #expect(refused["level"] == "warning")
        #expect(refused["metadata"]?["reason"]?.stringValue?.contains("token") == true)
        try? FileManager.default.removeItem(at: data)
        try? FileManager.default.removeItem(at: serve.errorsFile)
    }

    @Test("serve refuses an unknown --log-format with the accepted values")
    func badLogFormat() async throws {
        let result = try await runCLI(["serve", demoFolder.path, "--log-format", "xml"])
        #expect(result.status != 0)
        #expect(result.errors.contains("text") && result.errors.contains("json"))
    }
}
