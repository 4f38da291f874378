import Foundation
import StoryBridgeTesting

/// `storybridge content-server --fleet` as a child of the benchmark (docs/design/FLEET.md §11): a
/// fresh data folder, one admin who signs in to `/fleet`, devices added by `content-server device
/// add --token-out` (the CLI, as a site does it). The binary is the `storybridge` next to the
/// benchmark's own.
final class FleetHubChild {
    static let adminName = "bench-admin"
    static let adminPassword = "bench-password-\(UUID().uuidString.prefix(8))"

    let process: LaunchedProcess
    let port: Int
    let dataFolder: URL
    /// Drains the child's output (so that it never blocks on a full pipe); read at the end.
    private let output: CollectedOutput

    var base: String { "http://127.0.0.1:\(port)" }
    var pid: Int32 { process.processIdentifier }

    private init(process: LaunchedProcess, port: Int, dataFolder: URL, output: CollectedOutput) {
        self.process = process
        self.port = port
        self.dataFolder = dataFolder
        self.output = output
    }

    /// A fresh data folder for the hub.
    static func makeDataFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-bench-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Adds the kiosk devices `names` with `content-server device add NAME --token-out FILE` (the
    /// five at a time) and returns their tokens in the order of `names`.
    static func addDevices(_ names: [String], dataFolder: URL) async throws -> [String] {
        let tokens = dataFolder.appendingPathComponent("bench-tokens")
        try FileManager.default.createDirectory(at: tokens, withIntermediateDirectories: true)
        let binary = ServeChild.binary().path
        var next = 0
        try await withThrowingTaskGroup(of: Void.self) { group in
            func add(_ index: Int) {
                let name = names[index]
                group.addTask {
                    let run = try await ChildRun.run(
                        binary,
                        [
                            "content-server", "device", "add", name, "--label", "fleet=bench", "--token-out",
                            tokens.appendingPathComponent(name).path, "--data-dir", dataFolder.path,
                        ])
                    guard run.status == 0 else {
                        throw BenchmarkFailure("content-server device add \(name) exited with \(run.status): \(run.output)")
                    }
                }
            }
            // Five at a time (first opens of a fresh hub.sqlite take turns at its migrations).
            while next < min(5, names.count) {
                add(next)
                next += 1
            }
            while try await group.next() != nil, next < names.count {
                add(next)
                next += 1
            }
        }
        return try names.map { name in
            try String(contentsOf: tokens.appendingPathComponent(name), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Starts the hub on 127.0.0.1, port 0, over `dataFolder`, and waits until it listens.
    static func start(dataFolder: URL) async throws -> FleetHubChild {
        let arguments = [
            "content-server", "--port", "0", "--data-dir", dataFolder.path, "--app-id", "bench-app", "--app-secret",
            "bench-app-secret", "--user", "\(adminName):\(adminPassword)", "--admin", adminName, "--fleet", "--log-level", "error",
        ]
        let child = try await ListeningChild.start(arguments, what: "storybridge content-server --fleet", errorsToo: true)
        return FleetHubChild(
            process: child.process, port: child.port, dataFolder: dataFolder, output: CollectedOutput(child.output.fileHandleForReading))
    }

    /// The bytes of `hub.sqlite` with its WAL and shared-memory files.
    var databaseBytes: Int {
        let folder = dataFolder.appendingPathComponent("content-server")
        return ["hub.sqlite", "hub.sqlite-wal", "hub.sqlite-shm"].reduce(0) { sum, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            return sum + ((attributes?[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    /// Stops the hub (SIGTERM, its graceful stop) and returns what it printed after start-up.
    func stop() async -> String {
        process.terminate()
        if await !process.exit(killingAfter: .seconds(20)) { print("content-server did not stop within 20 s; killed") }
        return output.text()
    }

    /// Removes the data folder.
    func removeData() { try? FileManager.default.removeItem(at: dataFolder) }
}
