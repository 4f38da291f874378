import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// `storybridge doctor` run as a user would, against real folders, libraries and loopback servers.
@Suite("storybridge doctor")
struct DoctorCommandTests {
    @Test("a ready machine: required checks pass, a missing Chromium is a warning with its install command")
    func readyMachine() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let (collector, _) = try await makeCollector()
            let data = folder.appendingPathComponent("not-yet/data").path
            let result = try await runStorybridge([
                "doctor", "--browser", "/nonexistent/chromium", "--port", "0", "--data-dir", data,
                "--upload-endpoint", "http://127.0.0.1:\(collector.port)", "--upload-key", "key1", "--upload-secret", "s3cr3t",
            ])
            await collector.stop()
            #expect(result.status == 0, "\(result.output)\(result.errors)")
            let lines = result.output.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("  warn  Chromium: not found") })
            #expect(lines.contains("        fix: apt-get install chromium chromium-driver"))
            #expect(
                lines.contains {
                    $0.hasPrefix("  ok    data folder: \(data): does not exist yet, will be created (\(folder.path) is writable), ")
                })
            #expect(lines.contains { $0.hasPrefix("  ok    SQLite: 3.") && $0.contains("libsqlite3") })
            #expect(lines.contains { $0.hasPrefix("  ok    minizip: ") && $0.contains("libminizip") && $0.contains("zlib 1.") })
            #expect(lines.contains { $0.hasPrefix("  ok    port on 127.0.0.1: a free port can be had (") })
            #expect(lines.contains { $0.hasPrefix("  ok    upload collector: http://127.0.0.1:\(collector.port) answers (HTTP ") })
            #expect(lines.last == "doctor: ready, with 1 warning(s) (see the fix lines above)")
            #expect(!FileManager.default.fileExists(atPath: data), "doctor must not create the data folder")
        }
    }

    @Test("--json: one object with ready, the host id's 26 characters and every check's status and fix; the same exit status")
    func json() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let data = folder.appendingPathComponent("data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            let ready = try await runStorybridge([
                "doctor", "--json", "--browser", "/nonexistent/chromium", "--port", "0", "--data-dir", data.path,
            ])
            #expect(ready.status == 0, "\(ready.output)\(ready.errors)")
            let report = try JSONValue.parse(ready.output)
            let key = try HostKey.loadOrCreate(in: DataDirectory(data))
            #expect(report["hostId"]?.stringValue == key.hostId && key.hostId.count == 26)
            #expect(report["ready"] == true && report["failedRequired"] == 0 && report["warnings"] == 1)
            let checks = try #require(report["checks"]?.arrayValue)
            let chromium = try #require(checks.first { $0["subject"] == "Chromium" })
            #expect(chromium["status"] == "warning" && chromium["required"] == false)
            #expect(chromium["fix"] == "apt-get install chromium chromium-driver")
            #expect(checks.first { $0["subject"] == "host id" }?["status"] == "ok")
            #expect(checks.first { $0["subject"] == "upload collector" }?["status"] == "skipped")

            // A data folder that is a file: not ready, exit 1, the failed check with its fix; no host id.
            let file = folder.appendingPathComponent("file")
            try "x".write(to: file, atomically: true, encoding: .utf8)
            let broken = try await runStorybridge(["doctor", "--json", "--port", "0", "--data-dir", file.path])
            #expect(broken.status == 1, "\(broken.output)\(broken.errors)")
            let failed = try JSONValue.parse(broken.output)
            #expect(failed["ready"] == false && failed["hostId"] == .null)
            let folderCheck = try #require(failed["checks"]?.arrayValue?.first { $0["subject"] == "data folder" })
            #expect(folderCheck["status"] == "failed" && folderCheck["fix"]?.stringValue?.hasPrefix("mv '\(file.path)'") == true)
        }
    }

    @Test("a data folder that is a file, a busy port and a collector that is down: exit 1, each with its fix")
    func brokenMachine() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let file = folder.appendingPathComponent("data")
            try "x".write(to: file, atomically: true, encoding: .utf8)
            let (busy, _) = try await makeCollector()
            let down = try RefusingPort()
            defer { down.close() }
            let closedPort = down.port
            let result = try await runStorybridge([
                "doctor", "--port", "\(busy.port)", "--data-dir", file.path,
                "--upload-endpoint", "http://127.0.0.1:\(closedPort)", "--upload-key", "key1", "--upload-secret", "s3cr3t",
            ])
            await busy.stop()
            #expect(result.status == 1, "\(result.output)\(result.errors)")
            let output = result.output
            #expect(
                output.contains(
                    "  FAIL  data folder: \(file.path) is a file, not a folder\n        fix: mv '\(file.path)' '\(file.path).old'   (or pass --data-dir with another folder)\n"
                ))
            #expect(
                output.contains(
                    "  FAIL  port on 127.0.0.1: \(busy.port): address already in use (another program listens there)\n        fix: ss -ltnp 'sport = :\(busy.port)'   (shows what holds it; or serve with --port 0 for a free one)\n"
                ))
            #expect(
                output.contains(
                    "  FAIL  upload collector: cannot reach 'http://127.0.0.1:\(closedPort)': connection refused (nothing listens there)\n        fix: start the collector (storybridge collector serve) or correct the endpoint in --upload-endpoint\n"
                ))
            #expect(output.hasSuffix("doctor: 3 required check(s) failed; run the fix lines above\n"))
        }
    }

    @Test("an existing data folder: doctor shows the host id of the key it finds (or makes), and fails on a key others may read")
    func hostId() async throws {
        try await withScratchFolder("sb-cli") { folder in
            let data = folder.appendingPathComponent("data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            let arguments = ["doctor", "--browser", "/nonexistent/chromium", "--port", "0", "--data-dir", data.path]
            let first = try await runStorybridge(arguments)
            #expect(first.status == 0, "\(first.output)\(first.errors)")
            let key = try HostKey.loadOrCreate(in: DataDirectory(data))
            #expect(first.output.contains("  ok    host id: \(key.groupedHostId)\n"))
            let second = try await runStorybridge(arguments)
            #expect(second.output.contains("  ok    host id: \(key.groupedHostId)\n"))
            let file = HostKey.file(in: DataDirectory(data)).path
            #expect(chmod(file, 0o644) == 0)
            let exposed = try await runStorybridge(arguments)
            #expect(exposed.status == 1, "\(exposed.output)\(exposed.errors)")
            #expect(exposed.output.contains("  FAIL  host id: the host key \(file) has mode 644"))
            #expect(exposed.output.contains("        fix: chmod 600 '\(file)'\n"))
        }
    }
}
