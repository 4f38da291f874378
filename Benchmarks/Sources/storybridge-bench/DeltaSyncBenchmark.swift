import Foundation
import Logging
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting

/// `storybridge-bench delta-sync`: a generated ~300 MB package (200 slides, images and videos of
/// realistic sizes) on the real content server on 127.0.0.1, synced once; then one 200 KB slide
/// changes and `storybridge sync --content` updates it (timed; bytes, range requests and
/// connections from its summary line; its phases from ``PhaseTiming``), against `curl` fetching
/// the same byte ranges (the 64 KB tail and the changed entry) plus `unzip` of that entry; then
/// the same update from a server that ignores ranges (bytes against the package size). Each
/// round alternates which of the two timed runs goes first, and each starts with the dirty pages
/// written back (``flushDirtyPages()``). The server signs its packages and each kiosk pinned
/// its root, so the update checks a manifest (docs/design/TRUST.md 7.3).
///
/// Two ratios are printed (docs/BENCHMARKS.md says how the target is judged): the whole
/// process's time, and the delta update's own time (the phase from the decision to fetch, once
/// the package link is known, to the swap), each against curl + unzip.
struct DeltaSyncBenchmark {
    var slides = 200
    var rounds = 3
    /// The deck's videos (large files) and the bytes of each.
    var videos = 6
    var videoBytes = 28 << 20

    /// Whether the server signs and each kiosk pins its root (the default, TRUST.md 7.3); off
    /// (`--unsigned`), the same build's update without the trust layer's work, to tell its cost
    /// from the rest of a build's.
    var signed = true

    static let presentationId = 1
    static let changedSlide = 100

    func run() async throws {
        let storybridge = try SyncBenchmark.sibling("storybridge")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-bench-delta-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let serverDirectory = DataDirectory(folder.appendingPathComponent("server"))
        let library = try LibraryStore(directory: serverDirectory)
        print("generating a deck of \(slides) slides with images and videos...")
        try publish(version: 0, into: library, scratch: folder)
        // The server signs (docs/design/TRUST.md 7.3): its keys made before it starts, its root
        // pinned by each kiosk; each timed update then fetches and checks a manifest.
        let trust = ContentTrustFolder(dataDirectory: serverDirectory)
        if signed {
            _ = try ContentServerKeys(folder: trust).initialise(rootOut: folder.appendingPathComponent("root.key").path, offline: false)
        } else {
            print("unsigned: the server signs nothing and the kiosks pin no root (--unsigned)")
        }
        var results: [(seconds: Double, bytes: Double, requests: Int, connections: Int, curl: Double, idle: Double, phases: PhaseTimes)] =
            []
        for ignoreRanges in [false, true] {
            var faults = TestFaults()
            faults.ignoreRanges = ignoreRanges
            var logger = Logger(label: "bench.content-server")
            logger.logLevel = .critical
            let accounts = ContentServerAccounts.wholeLibrary(
                services: [.init(clientId: SyncBenchmark.serviceId, clientSecret: SyncBenchmark.serviceSecret)], apps: [], users: [])
            let server = try await ContentServer(
                configuration: ContentServerConfiguration(
                    host: "127.0.0.1", port: 0, dataDirectory: serverDirectory, accounts: accounts, faults: faults),
                logger: logger
            ).start()
            defer { Task { await server.stop() } }
            let base = server.baseURL
            for round in 1...(ignoreRanges ? 1 : rounds) {
                let dataDir = folder.appendingPathComponent("client-\(ignoreRanges)-\(round)")
                try await SyncBenchmark.login(storybridge, base: base, dataDir: dataDir)
                if signed {
                    try SyncBenchmark.check(
                        await ChildRun.run(storybridge, ["trust", "add", trust.rootPublicKey.path, "--data-dir", dataDir.path]), "trust add"
                    )
                    try await Self.waitForManifest(server: serverDirectory, in: trust)
                }
                // Untimed: the first, full sync of the current revision.
                try SyncBenchmark.check(
                    await ChildRun.run(storybridge, ["sync", "--content", "--data-dir", dataDir.path]), "first sync")
                let before = try Self.packageFile(serverDirectory)
                let version = (ignoreRanges ? 100 : 0) + round
                try publish(version: version, into: library, scratch: folder)
                // Untimed: the server builds the new package (the timed sync must not wait for it).
                let deadline = Date().addingTimeInterval(300)
                while (try? Self.packageFile(serverDirectory)) == before || (try? Self.packageFile(serverDirectory)) == nil {
                    guard Date() < deadline else { throw BenchmarkFailure("the server built no new package in 300 s") }
                    try await Task.sleep(for: .milliseconds(200))
                }
                try SyncBenchmark.check(await ChildRun.run(storybridge, ["sync", "--data-dir", dataDir.path]), "metadata sync")
                let package = try Self.packageFile(serverDirectory)
                if signed { try await Self.waitForManifest(server: serverDirectory, in: trust) }
                // curl + unzip goes first in odd rounds, the delta sync in even ones; each starts
                // with the untimed work's dirty pages written back (see flushDirtyPages).
                let curlFirst = !ignoreRanges && round % 2 == 1
                let curlFolder = folder.appendingPathComponent("curl-\(round)")
                var curl = 0.0
                if curlFirst { curl = try await curlAndUnzip(base: base, package: package, into: curlFolder) }
                Self.flushDirtyPages()
                let update = try await ChildRun.run(storybridge, ["sync", "--content", "--data-dir", dataDir.path], timing: !ignoreRanges)
                try SyncBenchmark.check(update, "update sync")
                // Each timed sync's own phase lines, in the order they ended, for a timeline of
                // what ran beside what (docs/BENCHMARKS.md, the one-slide delta).
                if let timeline = ProcessInfo.processInfo.environment["STORYBRIDGE_BENCH_TIMELINE"], !ignoreRanges {
                    let lines = update.output.split(separator: "\n").filter { $0.hasPrefix("timing:") }
                    let text = "round \(round)\n" + lines.joined(separator: "\n") + "\n"
                    if let handle = FileHandle(forWritingAtPath: timeline) {
                        handle.seekToEndOfFile()
                        handle.write(Data(text.utf8))
                        try? handle.close()
                    } else {
                        try Data(text.utf8).write(to: URL(fileURLWithPath: timeline))
                    }
                }
                let bytes = try Self.number(before: " MB transferred", in: update.output) * 1e6
                let requests = Int((try? Self.number(before: " range requests", in: update.output)) ?? 0)
                let connections = Int((try? Self.number(before: " connection", in: update.output)) ?? 0)
                if ignoreRanges {
                    let size = Double((try FileManager.default.attributesOfItem(atPath: package.path)[.size] as? NSNumber)?.int64Value ?? 0)
                    print(
                        String(
                            format: "ranges ignored: %.2f MB transferred for a %.2f MB package (%.4fx; target <= 1.02x), %.2f s",
                            bytes / 1e6, size / 1e6, bytes / size, update.seconds))
                } else {
                    if !curlFirst { curl = try await curlAndUnzip(base: base, package: package, into: curlFolder) }
                    // The same command with nothing to fetch: process start, login check, metadata, catalog.
                    let idle = try await ChildRun.run(storybridge, ["sync", "--content", "--data-dir", dataDir.path])
                    try SyncBenchmark.check(idle, "idle sync")
                    let phases = PhaseTimes(output: update.output, wholeSeconds: update.seconds)
                    results.append((update.seconds, bytes, requests, connections, curl, idle.seconds, phases))
                    print(
                        String(
                            format:
                                "  round %d: delta sync %.3f s (its delta update %.1f ms), %.2f MB, %d range requests over %d connection(s); curl + unzip of those bytes %.3f s; the same sync with nothing to fetch %.3f s",
                            round, update.seconds, phases.deltaUpdate ?? .nan, bytes / 1e6, requests, connections, curl, idle.seconds))
                }
                try? FileManager.default.removeItem(at: dataDir)
            }
            await server.stop()
        }
        let best = results.min { $0.seconds < $1.seconds }!
        let bestCurl = results.map(\.curl).min()!
        let bestIdle = results.map(\.idle).min()!
        let bestOwn = results.compactMap(\.phases.deltaUpdate).min() ?? .nan
        print("phases of the timed sync (median of \(results.count) rounds, ms; a phase inside another is indented):")
        for line in PhaseTimes.medians(results.map(\.phases)) { print("  " + line) }
        print(
            String(
                format:
                    "delta: %.2f MB in %d range requests over %d connection(s) (targets < 1 MB, <= 4); curl + unzip %.3f s; the sync with nothing to fetch %.3f s",
                best.bytes / 1e6, best.requests, best.connections, bestCurl, bestIdle))
        print(
            String(
                format: "  whole process: %.3f s vs curl + unzip %.3f s: %.2fx (target <= 1.1x)", best.seconds, bestCurl,
                best.seconds / bestCurl))
        print(
            String(
                format: "  delta update's own time (decision to fetch to swap): %.1f ms vs curl + unzip %.1f ms: %.2fx (target <= 1.1x)",
                bestOwn, bestCurl * 1000, bestOwn / (bestCurl * 1000)))
        // Each round's ratio against its own curl + unzip, and their median (the judged figure).
        let ownRatios = results.compactMap { result in result.phases.deltaUpdate.map { $0 / (result.curl * 1000) } }.sorted()
        let wholeRatios = results.map { $0.seconds / $0.curl }.sorted()
        if let lowest = ownRatios.first, let highest = ownRatios.last {
            print(
                String(
                    format: "  per-round ratios, median (range): own time %.2fx (%.2fx to %.2fx), whole process %.2fx (%.2fx to %.2fx)",
                    Self.median(ownRatios), lowest, highest, Self.median(wholeRatios), wholeRatios.first!,
                    wholeRatios.last!))
        }
        // The work moved off the update's critical path, said on its own and added back.
        let treeBuilds = results.compactMap(\.phases.readyTreeBuild).sorted()
        if let lowest = treeBuilds.first, let highest = treeBuilds.last {
            let withTree = results.compactMap { result in
                result.phases.deltaUpdate.flatMap { own in result.phases.readyTreeBuild.map { (own + $0) / (result.curl * 1000) } }
            }.sorted()
            print(
                String(
                    format:
                        "  ready tree for the next update, linked after the swap (not in the own time, in the whole process): median %.1f ms (%.1f to %.1f); own time plus it, median of the per-round ratios %.2fx",
                    Self.median(treeBuilds), lowest, highest, Self.median(withTree)))
        } else {
            print("  ready tree for the next update: not built in the timed runs")
        }
    }

    /// Publishes the deck; slide ``changedSlide`` carries `version`, everything else is the same
    /// in every version.
    func publish(version: Int, into library: LibraryStore, scratch: URL) throws {
        let zip = scratch.appendingPathComponent("deck-\(version).zip")
        defer { try? FileManager.default.removeItem(at: zip) }
        try writePackage(version: version, to: zip)
        _ = try library.install(zip: zip, options: .init(id: Self.presentationId, name: "Delta bench"))
    }

    /// Writes the deck's package to `zip` (``publish(version:into:scratch:)``'s package; the
    /// verify benchmark's deck too).
    func writePackage(version: Int, to zip: URL) throws {
        let writer = try ZipWriter(path: zip.path)
        try writer.add("index.html", text: "<!DOCTYPE html><html><head><title>Delta bench</title></head><body>start</body></html>")
        var noise = NoiseGenerator(seed: 7)
        for slide in 1...slides {
            // About 200 KB of markup per slide (base64 of noise: deflates to about three quarters).
            var text = "<!DOCTYPE html><html><body><h1>Slide \(slide)</h1><p>"
            var slideNoise = NoiseGenerator(seed: UInt64(slide) &+ (slide == Self.changedSlide ? UInt64(version) << 32 : 0))
            text += slideNoise.data(150_000).base64EncodedString()
            text += "</p></body></html>"
            try writer.add(String(format: "slides/s%03d/index.html", slide), text: text)
            try writer.add(String(format: "slides/s%03d/background.jpg", slide), data: noise.data(600_000), compress: false)
        }
        for video in 0..<videos {
            try writer.add("mediafiles/video-\(video + 1).mp4", data: noise.data(videoBytes), compress: false)
        }
        try writer.close()
    }

    /// `curl` of the tail (`-r -65557`) and of the changed entry's span, then `unzip` of that entry.
    func curlAndUnzip(base: String, package: URL, into folder: URL) async throws -> Double {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = try Data(contentsOf: package, options: .alwaysMapped)
        let name = Data(String(format: "slides/s%03d/index.html", Self.changedSlide).utf8)
        guard let found = bytes.range(of: name) else { throw BenchmarkFailure("the changed slide is not in the package") }
        let start = found.lowerBound - 30
        let end = bytes.range(of: Data([0x50, 0x4B, 0x03, 0x04]), in: found.upperBound..<bytes.endIndex)?.lowerBound ?? bytes.endIndex
        let tokenReply = try await ChildRun.run(
            "/usr/bin/curl",
            [
                "-sSf", "-d",
                "grant_type=client_credentials&client_id=\(SyncBenchmark.serviceId)&client_secret=\(SyncBenchmark.serviceSecret)",
                "\(base)/connect/token",
            ])
        let token = try SyncBenchmark.field("access_token", of: tokenReply)
        let reply = try await ChildRun.run(
            "/usr/bin/curl", ["-sSf", "-H", "Authorization: Bearer \(token)", "\(base)/v1/contentpackages/\(Self.presentationId)"])
        let link = try SyncBenchmark.field("sas", of: reply)
        let script = """
            curl -sSf -r -65557 -o '\(folder.path)/tail' '\(link)' && curl -sSf -r \(start)-\(end - 1) -o '\(folder.path)/entry' '\(link)' \
            && unzip -q -o '\(package.path)' '\(String(decoding: name, as: UTF8.self))' -d '\(folder.path)/out'
            """
        Self.flushDirtyPages()
        let run = try await ChildRun.run("/bin/sh", ["-c", script])
        try SyncBenchmark.check(run, "curl + unzip")
        return run.seconds
    }

    /// The median of sorted `values` (the mean of the middle two when their count is even).
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let middle = values.count / 2
        return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }

    /// Writes every file system's dirty pages back (`sync(2)`) before a timed run, so the page
    /// cache's writeback of the untimed setup (the first sync wrote 326 MB; the other timed run
    /// wrote its files) does not land in the time of whichever of the two runs comes next.
    static func flushDirtyPages() {
        sync()
    }

    /// Waits (untimed, up to 300 s) until the server built a package and signed the manifest of
    /// its newest one.
    static func waitForManifest(server: DataDirectory, in trust: ContentTrustFolder) async throws {
        let deadline = Date().addingTimeInterval(300)
        while true {
            if let package = try? packageFile(server),
                FileManager.default.fileExists(
                    atPath: trust.manifests.appendingPathComponent(package.deletingPathExtension().lastPathComponent + ".json").path)
            {
                return
            }
            guard Date() < deadline else { throw BenchmarkFailure("the server signed no manifest of its newest package in 300 s") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    static func packageFile(_ server: DataDirectory) throws -> URL {
        let folder = server.root.appendingPathComponent("content-server/packages")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("\(presentationId)-r") }
        guard let newest = names.max(by: { revision($0) < revision($1) }) else { throw BenchmarkFailure("no package built") }
        return folder.appendingPathComponent(newest)
    }

    private static func revision(_ name: String) -> Int {
        Int(name.split(separator: "-r").last?.split(separator: ".").first ?? "") ?? 0
    }

    /// The number just before `suffix` in `text` (`12.3 MB transferred`).
    static func number(before suffix: String, in text: String) throws -> Double {
        guard let range = text.range(of: suffix) else { throw BenchmarkFailure("no '\(suffix)' in: \(text)") }
        let head = text[..<range.lowerBound]
        let digits = head.reversed().prefix { $0.isNumber || $0 == "." }
        guard let value = Double(String(digits.reversed())) else { throw BenchmarkFailure("no number before '\(suffix)'") }
        return value
    }
}
