import Foundation
import Logging
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting

/// `storybridge-bench sync`: presentations of incompressible bytes in real zips, served by the
/// real content server on 127.0.0.1; `storybridge sync --content` into a fresh data folder against
/// `curl` fetching the same blobs from their `sas` links plus `unzip`, two at a time each, in the
/// same run; then the peak RSS of `storybridge sync --content` fetching one large package.
struct SyncBenchmark {
    var totalMegabytes = 512
    var packages = 4
    var bigMegabytes = 1024
    var rounds = 2

    static let serviceId = "bench-service"
    static let serviceSecret = "bench-secret"
    static let bigId = 900

    func run() async throws {
        let storybridge = try Self.sibling("storybridge")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-bench-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let serverDirectory = DataDirectory(folder.appendingPathComponent("server"))
        let library = try LibraryStore(directory: serverDirectory)

        let each = totalMegabytes << 20 / packages
        print("generating \(packages) presentations of \(each >> 20) MB and one of \(bigMegabytes) MB (incompressible)...")
        for id in 1...packages { try Self.publish(id: id, bytes: each, into: library, scratch: folder) }
        if bigMegabytes > 0 { try Self.publish(id: Self.bigId, bytes: bigMegabytes << 20, into: library, scratch: folder) }

        var logger = Logger(label: "bench.content-server")
        logger.logLevel = .critical
        let accounts = ContentServerAccounts.wholeLibrary(
            services: [.init(clientId: Self.serviceId, clientSecret: Self.serviceSecret)], apps: [], users: [])
        let server = try await ContentServer(
            configuration: ContentServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: serverDirectory, accounts: accounts),
            logger: logger
        ).start()
        do {
            try await measure(storybridge, base: server.baseURL, serverDirectory: serverDirectory, folder: folder)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func measure(_ storybridge: String, base: String, serverDirectory: DataDirectory, folder: URL) async throws {
        print("content server on \(base); building the packages (an untimed metadata sync)...")
        let warm = folder.appendingPathComponent("warm")
        try await Self.login(storybridge, base: base, dataDir: warm)
        try await Self.check(ChildRun.run(storybridge, ["sync", "--data-dir", warm.path]), "warm-up sync")

        let ids = Array(1...packages)
        let sizes = try Self.packageSizes(serverDirectory, ids: ids)
        let totalBytes = sizes.reduce(0, +)
        print(
            String(
                format: "timed: %d packages, %.1f MB in all, 2 at a time, best of %d rounds", ids.count, Double(totalBytes) / 1e6, rounds))
        var syncTimes: [Double] = []
        var curlTimes: [Double] = []
        for round in 1...rounds {
            let baseline = try await curlAndUnzip(base: base, ids: ids, into: folder.appendingPathComponent("curl-\(round)"))
            curlTimes.append(baseline)
            let dataDir = folder.appendingPathComponent("sync-\(round)")
            try await Self.login(storybridge, base: base, dataDir: dataDir)
            let sync = try await ChildRun.run(storybridge, ["sync", "--content"] + ids.map(String.init) + ["--data-dir", dataDir.path])
            try Self.check(sync, "storybridge sync --content")
            syncTimes.append(sync.seconds)
            try? FileManager.default.removeItem(at: dataDir)
            print(String(format: "  round %d: curl + unzip %.2f s, storybridge sync --content %.2f s", round, baseline, sync.seconds))
        }
        let best = (sync: syncTimes.min()!, curl: curlTimes.min()!)
        print(String(format: "curl + unzip:               %.2f s (%.0f MB/s)", best.curl, Double(totalBytes) / 1e6 / best.curl))
        print(String(format: "storybridge sync --content: %.2f s (%.0f MB/s)", best.sync, Double(totalBytes) / 1e6 / best.sync))
        print(String(format: "ratio %.2fx (target <= 1.20x)", best.sync / best.curl))

        guard bigMegabytes > 0 else { return }
        let bigDir = folder.appendingPathComponent("sync-big")
        try await Self.login(storybridge, base: base, dataDir: bigDir)
        let big = try await ChildRun.run(
            storybridge, ["sync", "--content", String(Self.bigId), "--data-dir", bigDir.path], pollRSS: true)
        try Self.check(big, "storybridge sync --content \(Self.bigId)")
        let bigSize = try Self.packageSizes(serverDirectory, ids: [Self.bigId])[0]
        print(
            String(
                format: "one %.0f MB package: %.2f s, peak RSS (VmHWM) %.1f MB (target < 100 MB)", Double(bigSize) / 1e6, big.seconds,
                Double(big.peakRSSKiB) / 1024))
    }

    /// `curl` each package from a fresh `sas` link and `unzip` it, two at a time (xargs -P 2); seconds.
    func curlAndUnzip(base: String, ids: [Int], into folder: URL) async throws -> Double {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tokenReply = try await ChildRun.run(
            "/usr/bin/curl",
            [
                "-sSf", "-d", "grant_type=client_credentials&client_id=\(Self.serviceId)&client_secret=\(Self.serviceSecret)",
                "\(base)/connect/token",
            ])
        let token = try Self.field("access_token", of: tokenReply)
        var lines: [String] = []
        for id in ids {
            let reply = try await ChildRun.run(
                "/usr/bin/curl", ["-sSf", "-H", "Authorization: Bearer \(token)", "\(base)/v1/contentpackages/\(id)"])
            lines.append("\(try Self.field("sas", of: reply)) \(folder.appendingPathComponent(String(id)).path)")
        }
        let list = folder.appendingPathComponent("links.txt")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: list)
        let script = """
            xargs -P 2 -L 1 sh -c 'curl -sSf -o "$1.zip" "$0" && unzip -q "$1.zip" -d "$1" && rm "$1.zip"' < '\(list.path)'
            """
        let run = try await ChildRun.run("/bin/sh", ["-c", script])
        try Self.check(run, "curl + unzip")
        return run.seconds
    }

    static func publish(id: Int, bytes: Int, into library: LibraryStore, scratch: URL) throws {
        let zip = scratch.appendingPathComponent("deck-\(id).zip")
        defer { try? FileManager.default.removeItem(at: zip) }
        let writer = try ZipWriter(path: zip.path)
        try writer.add("index.html", text: "<!DOCTYPE html><html><head><title>Bench \(id)</title></head><body>\(id)</body></html>")
        var generator = NoiseGenerator(seed: UInt64(id))
        let chunk = 32 << 20
        var written = 0
        var part = 0
        while written < bytes {
            let count = min(chunk, bytes - written)
            try writer.add("mediafiles/clip-\(part).mp4", data: generator.data(count), compress: false)
            written += count
            part += 1
        }
        try writer.close()
        _ = try library.install(zip: zip, options: .init(id: id, name: "Bench \(id)"))
    }

    static func packageSizes(_ server: DataDirectory, ids: [Int]) throws -> [Int64] {
        let folder = server.root.appendingPathComponent("content-server/packages")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        return try ids.map { id in
            guard let name = names.first(where: { $0.hasPrefix("\(id)-r") && $0.hasSuffix(".zip") }) else {
                throw BenchmarkFailure("the server built no package for presentation \(id)")
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            return (attributes[.size] as? NSNumber)?.int64Value ?? 0
        }
    }

    static func login(_ storybridge: String, base: String, dataDir: URL) async throws {
        try check(
            await ChildRun.run(
                storybridge,
                [
                    "login", "--auth", base, "--api", base, "--client-id", serviceId, "--client-secret", serviceSecret, "--data-dir",
                    dataDir.path,
                ]), "storybridge login")
    }

    static func check(_ run: ChildRun, _ what: String) throws {
        guard run.status == 0 else { throw BenchmarkFailure("\(what) exited with \(run.status): \(run.output)") }
    }

    static func field(_ name: String, of run: ChildRun) throws -> String {
        try check(run, "curl")
        guard let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any],
            let value = object[name] as? String
        else { throw BenchmarkFailure("no \(name) in \(run.output)") }
        return value
    }

    /// An executable built next to this one.
    static func sibling(_ name: String) throws -> String {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let path = folder.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchmarkFailure("\(path) not found: build it with the same configuration (--product \(name))")
        }
        return path
    }
}

/// Fast incompressible bytes (xorshift64*), eight at a time.
struct NoiseGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func data(_ count: Int) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            let words = raw.count / 8
            let pointer = raw.baseAddress!
            for index in 0..<words {
                state ^= state >> 12
                state ^= state << 25
                state ^= state >> 27
                pointer.storeBytes(of: state &* 0x2545_F491_4F6C_DD1D, toByteOffset: index * 8, as: UInt64.self)
            }
            for index in (words * 8)..<raw.count { raw[index] = UInt8(truncatingIfNeeded: state >> 8 &+ UInt64(index)) }
        }
        return data
    }
}
