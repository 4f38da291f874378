import Foundation
import StoryBridge

/// `storybridge-bench verify`: docs/design/TRUST.md 7.1. A deck of about `--mb` megabytes made by
/// the delta benchmark's generator (``DeltaSyncBenchmark/writePackage(version:to:)``: slides of a
/// 200 KB page and a 600 KB image, about 40 % of the bytes, and videos of about 30 MB for the
/// rest), installed with `storybridge install` into a temporary data folder; every file read once
/// to warm the page cache (both sides then read from it: dropping caches needs root). Then each
/// round times, as child processes and in alternating order, the real CLI's `storybridge verify 1
/// --json` (process start, database, sync lock, `TreeHasher` on its threads, the record) and
/// `openssl dgst -sha256` over the same files in the same order (all as arguments, in groups of
/// 4,000 through `xargs -0 -n 4000` when there are more). Wall time of each; the ratio per round,
/// and the median ratio with its range. Target: at most 1.1x.
struct VerifyBenchmark {
    var megabytes = 300
    var rounds = 6

    func run() async throws {
        guard let openssl = Self.findExecutable("openssl") else {
            print(
                "openssl is not installed (no `openssl` on PATH): the verify benchmark compares with `openssl dgst -sha256`; install it (apt-get install openssl)"
            )
            exit(1)
        }
        let storybridge = try SyncBenchmark.sibling("storybridge")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-bench-verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // About 40 % of the bytes in slides of 0.8 MB (two files each), the rest in videos of ~30 MB.
        var generator = DeltaSyncBenchmark()
        generator.slides = max(1, megabytes / 2)
        generator.videos = max(1, Int((Double(megabytes) * 0.6 / 30).rounded()))
        generator.videoBytes = Int(Double(megabytes) * 0.6 * 1_048_576 / Double(generator.videos))
        print("generating a deck of \(generator.slides) slides and \(generator.videos) videos (about \(megabytes) MB)...")
        let zip = folder.appendingPathComponent("deck.zip")
        try generator.writePackage(version: 0, to: zip)
        let dataDir = folder.appendingPathComponent("kiosk")
        try SyncBenchmark.check(
            await ChildRun.run(storybridge, ["install", zip.path, "--id", "1", "--data-dir", dataDir.path]), "storybridge install")
        try? FileManager.default.removeItem(at: zip)
        let library = try LibraryStore(directory: DataDirectory(dataDir))
        guard let entry = try library.entry(id: 1) else { throw BenchmarkFailure("the deck was not installed") }
        let root = entry.presentation.root
        let files = try TreeHasher.listing(of: root)
        let total = files.reduce(Int64(0)) { $0 + $1.size }
        let small = files.filter { $0.size < 1 << 20 }.reduce(Int64(0)) { $0 + $1.size }
        print(
            String(
                format: "installed: %d files, %.1f MB, %.0f %% of the bytes in files under 1 MB", files.count, Double(total) / 1e6,
                100 * Double(small) / Double(max(total, 1))))

        // Warm the page cache: every file read once.
        for file in files { _ = try? Data(contentsOf: root.appendingPathComponent(file.path)) }

        // The file list for openssl, NUL-separated, in the listing's order.
        let list = folder.appendingPathComponent("files.list")
        var listBytes = Data()
        for file in files {
            listBytes.append(Data(root.appendingPathComponent(file.path).path.utf8))
            listBytes.append(0)
        }
        try listBytes.write(to: list)
        let paths = files.map { root.appendingPathComponent($0.path).path }

        // One untimed run of each (verify records the first hashes of a deck installed by hand).
        try await verify(storybridge, dataDir: dataDir)
        _ = try await digest(openssl, paths: paths, list: list)

        var rows: [(verify: Double, openssl: Double)] = []
        for round in 1...rounds {
            var verifySeconds = 0.0
            var opensslSeconds = 0.0
            if round % 2 == 1 {
                verifySeconds = try await verify(storybridge, dataDir: dataDir)
                opensslSeconds = try await digest(openssl, paths: paths, list: list)
            } else {
                opensslSeconds = try await digest(openssl, paths: paths, list: list)
                verifySeconds = try await verify(storybridge, dataDir: dataDir)
            }
            rows.append((verifySeconds, opensslSeconds))
            print(
                String(
                    format: "  round %d (%@ first): storybridge verify %.3f s, openssl dgst -sha256 %.3f s: %.2fx", round,
                    round % 2 == 1 ? "verify" : "openssl", verifySeconds, opensslSeconds, verifySeconds / opensslSeconds))
        }
        let ratios = rows.map { $0.verify / $0.openssl }.sorted()
        let verifyTimes = rows.map(\.verify).sorted()
        let opensslTimes = rows.map(\.openssl).sorted()
        print(
            String(
                format:
                    "verify %.1f MB: storybridge verify median %.3f s (%.3f to %.3f), openssl dgst -sha256 median %.3f s (%.3f to %.3f)",
                Double(total) / 1e6, DeltaSyncBenchmark.median(verifyTimes), verifyTimes.first!, verifyTimes.last!,
                DeltaSyncBenchmark.median(opensslTimes), opensslTimes.first!, opensslTimes.last!))
        print(
            String(
                format: "  per-round ratio verify / openssl, median (range): %.2fx (%.2fx to %.2fx) over %d rounds (target <= 1.1x)",
                DeltaSyncBenchmark.median(ratios), ratios.first!, ratios.last!, ratios.count))
    }

    /// `storybridge verify 1 --json` of the deck; its wall time. Fails unless it exits 0 (every
    /// file as recorded; 65 would be a difference).
    @discardableResult
    func verify(_ storybridge: String, dataDir: URL) async throws -> Double {
        let run = try await ChildRun.run(storybridge, ["verify", "1", "--json", "--data-dir", dataDir.path])
        try SyncBenchmark.check(run, "storybridge verify")
        return run.seconds
    }

    /// `openssl dgst -sha256` of `paths` (through `xargs -0 -n 4000` reading `list` when there are
    /// more than 4,000); its wall time.
    func digest(_ openssl: String, paths: [String], list: URL) async throws -> Double {
        let run =
            paths.count <= 4000
            ? try await ChildRun.run(openssl, ["dgst", "-sha256"] + paths)
            : try await ChildRun.run("/bin/sh", ["-c", "xargs -0 -n 4000 '\(openssl)' dgst -sha256 < '\(list.path)'"])
        try SyncBenchmark.check(run, "openssl dgst -sha256")
        return run.seconds
    }

    /// The first executable `name` on PATH.
    static func findExecutable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
