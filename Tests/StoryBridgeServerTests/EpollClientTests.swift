import Foundation
import StoryBridgeTesting
import Testing

/// The benchmark's second client, `storybridge-epoll-client` (C on epoll,
/// Benchmarks/Sources/storybridge-epoll-client), against a real `storybridge serve --bench-echo`
/// on loopback: every request gets its own GUID and exactly one answer, and what would make its
/// figures wrong fails the run with a reason.
@Suite("C epoll benchmark client")
struct EpollClientTests {
    /// The built client, next to the test bundle.
    static func client() throws -> URL {
        let storybridge = try storybridgeExecutable()
        let binary = storybridge.deletingLastPathComponent().appendingPathComponent("storybridge-epoll-client")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "storybridge-epoll-client (run swift build first)"])
        }
        return binary
    }

    /// Runs the client to completion.
    static func run(_ arguments: [String]) async throws -> CLIResult {
        let output = Pipe()
        let errors = Pipe()
        let process = try await LaunchedProcess.launch(
            try client(), arguments: arguments, input: .discard, output: .pipe(output), error: .pipe(errors))
        let (out, err) = await readUntilExit(process, output: output, errors: errors, limit: .seconds(60))
        return CLIResult(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), errors: String(decoding: err, as: UTF8.self))
    }

    /// The `key=value` fields of the client's result lines.
    static func results(_ output: String) -> [[String: String]] {
        output.split(separator: "\n").filter { $0.hasPrefix("result ") }.map { line in
            Dictionary(
                line.split(separator: " ").compactMap { field in
                    field.firstIndex(of: "=").map { (String(field[..<$0]), String(field[field.index(after: $0)...])) }
                }, uniquingKeysWith: { _, last in last })
        }
    }

    static let memory = #"{"Command":"getCurrentSlideName","Data":{},"GUID":"{GUID}"}"#
    static let write = #"{"Command":"setCustomEvent","Data":{"key":"check","value":"clicked"},"GUID":"{GUID}"}"#
    static let read = #"{"Command":"getCustomEventByKey","Data":{"key":"check"},"GUID":"{GUID}"}"#

    /// A host with the plain echo, its two endpoints for the client, and a way to stop it.
    static func withHost(_ body: (_ echo: String, _ bridge: (String) -> String, _ pid: Int32) async throws -> Void) async throws {
        try await withScratchFolder("sb-cli") { data in
            let deck = try makePresentationFolder(["index.html": "<!DOCTYPE html><html><body><h1>check</h1></body></html>"])
            defer { try? FileManager.default.removeItem(at: deck) }
            let serve = try await ServeProcess.start(
                [deck.path, "--port", "0", "--bench-echo", "--no-watch", "--log-level", "error", "--data-dir", data.path])
            let base = "ws://127.0.0.1:\(serve.port)/__storybridge"
            do {
                try await body(
                    "\(base)/echo?token=\(serve.token)",
                    { viewer in "\(base)/ws?viewer=\(viewer)&presentation=1&slide=index.html&load=\(viewer)&token=\(serve.token)" },
                    serve.process.processIdentifier)
            } catch {
                await serve.interrupt()
                throw error
            }
            #expect(await serve.interrupt() == 0)
        }
    }

    @Test("pipelined and alternating runs on the echo and the bridge: one answer per GUID, counted and timed")
    func oneAnswerPerGUID() async throws {
        try await Self.withHost { echo, bridge, pid in
            let onEcho = try await Self.run([
                "pipelined", "--echo-url", echo, "--connections", "4", "--count", "100", "--depth", "30", "--request", Self.memory,
                "--request", Self.write, "--host-pid", "\(pid)",
            ])
            #expect(onEcho.status == 0, "\(onEcho.errors)")
            let echoResult = try #require(Self.results(onEcho.output).first)
            #expect(echoResult["endpoint"] == "echo")
            #expect(echoResult["answers"] == "400")
            #expect(Double(echoResult["rate"] ?? "") ?? 0 > 0)
            #expect(Double(echoResult["host_cpu_us"] ?? "").map { $0.isFinite } == true)

            // Mixed memory, write and read commands, after a write that creates the key the reads ask for.
            let onBridge = try await Self.run([
                "pipelined", "--bridge-url", bridge("check-{i}"), "--connections", "4", "--count", "100", "--request", Self.memory,
                "--request", Self.write, "--request", Self.read, "--setup", Self.write,
            ])
            #expect(onBridge.status == 0, "\(onBridge.errors)")
            let bridgeResult = try #require(Self.results(onBridge.output).first)
            #expect(bridgeResult["endpoint"] == "bridge")
            #expect(bridgeResult["answers"] == "400")
            let p50 = try #require(Double(bridgeResult["p50_ms"] ?? ""))
            let p99 = try #require(Double(bridgeResult["p99_ms"] ?? ""))
            #expect(p50 > 0 && p50 <= p99)

            let alternating = try await Self.run([
                "alternating", "--echo-url", echo, "--bridge-url", bridge("check-0"), "--count", "150", "--block", "50", "--request",
                Self.memory,
            ])
            #expect(alternating.status == 0, "\(alternating.errors)")
            let paths = Self.results(alternating.output)
            #expect(paths.map { $0["endpoint"] } == ["echo", "bridge"])
            #expect(paths.map { $0["round_trips"] } == ["150", "150"])
        }
    }

    @Test("a failed answer, a refused upgrade and a second answer to one GUID each fail the run with the reason")
    func failuresAreCaught() async throws {
        try await Self.withHost { echo, bridge, _ in
            let unknown = try await Self.run([
                "pipelined", "--bridge-url", bridge("bad-{i}"), "--connections", "2", "--count", "5", "--request",
                #"{"Command":"noSuchCommand","Data":{},"GUID":"{GUID}"}"#,
            ])
            #expect(unknown.status == 1)
            #expect(unknown.errors.contains("answered request 0 with a failure"), "\(unknown.errors)")
            #expect(Self.results(unknown.output).isEmpty)

            let refused = try await Self.run([
                "pipelined", "--echo-url", echo.replacingOccurrences(of: "/echo", with: "/no-such-socket"), "--connections", "1",
                "--count", "5", "--request", Self.memory,
            ])
            #expect(refused.status == 1)
            #expect(refused.errors.contains("refused the upgrade"), "\(refused.errors)")

            // The echo sends each frame back; with a fixed GUID ahead of the client's, every echo
            // names request 0.
            let repeated = try await Self.run([
                "pipelined", "--echo-url", echo, "--connections", "1", "--count", "5", "--request",
                #"{"GUID":"GUID_c0_0","Data":"{GUID}"}"#,
            ])
            #expect(repeated.status == 1)
            #expect(repeated.errors.contains("second answer to request 0"), "\(repeated.errors)")
        }
    }

    @Test("its SHA-1 and base64, used to check the handshake, give the published answers")
    func handshakeDigest() async throws {
        let result = try await Self.run(["self-test"])
        #expect(result.status == 0, "\(result.errors)")
    }
}
