import Foundation
import Testing

@testable import StoryBridge

@Suite("Hashing a tree against a manifest")
struct TreeHasherTests {
    private func tree(_ files: [String: Data]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-tree-\(UUID().uuidString)")
        for (path, bytes) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: file)
        }
        return root
    }

    private func manifest(_ files: [ManifestFile]) -> PackageManifest {
        PackageManifest(
            presentationId: 1, presentationRevision: 1, packageId: 1, packageRevision: 1, created: Date(),
            expires: Date().addingTimeInterval(3600), keysVersion: 1, files: files)
    }

    @Test("a tree hashed equals its manifest; a changed, a missing and an added file are each named")
    func differences() async throws {
        let root = try tree([
            "index.html": Data("<html>".utf8), "slides/b.html": Data("b".utf8), "slides/c.html": Data("c".utf8),
            "mediafiles/film.mp4": Data(repeating: 7, count: 3 << 20),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let hasher = TreeHasher(threads: 3)
        let files = try await hasher.hash(tree: root)
        #expect(files.map(\.path) == ["index.html", "mediafiles/film.mp4", "slides/b.html", "slides/c.html"])
        let expected = manifest(files)
        try await hasher.verify(tree: root, against: expected)

        // Same size, one byte different; a file removed; a file added; an empty folder is fine.
        try Data("x".utf8).write(to: root.appendingPathComponent("slides/b.html"))
        try FileManager.default.removeItem(at: root.appendingPathComponent("slides/c.html"))
        try Data("evil".utf8).write(to: root.appendingPathComponent("slides/x.js"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let difference = TreeHasher.difference(of: try await hasher.hash(tree: root), from: expected)
        #expect(difference.changed.map(\.path) == ["slides/b.html"])
        #expect(difference.missing == ["slides/c.html"])
        #expect(difference.added == ["slides/x.js"])
        await #expect(throws: TrustFailure.treeDiffers(difference)) { try await hasher.verify(tree: root, against: expected) }
        #expect(difference.description.contains("'slides/b.html' differs (sha256 "))
        #expect(difference.description.contains("'slides/c.html' is missing"))
        #expect(difference.description.contains("'slides/x.js' is not in the manifest"))
    }

    @Test("a symbolic link or a FIFO in a tree is refused, naming it")
    func oddEntries() async throws {
        let root = try tree(["index.html": Data("i".utf8)])
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createSymbolicLink(atPath: root.path + "/link.html", withDestinationPath: "/etc/passwd")
        await #expect(throws: TrustFailure.unexpectedEntry(path: "link.html", kind: "a symbolic link")) {
            _ = try await TreeHasher().hash(tree: root)
        }
        try FileManager.default.removeItem(atPath: root.path + "/link.html")
        try FileManager.default.createDirectory(atPath: root.path + "/sub", withIntermediateDirectories: true)
        #expect(mkfifo(root.path + "/sub/pipe", 0o644) == 0)
        await #expect(throws: TrustFailure.unexpectedEntry(path: "sub/pipe", kind: "a FIFO")) {
            _ = try await TreeHasher().hash(tree: root)
        }
    }

    @Test(
        "hashes equal openssl dgst -sha256's for random files of many sizes",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
    func matchesOpenSSL() async throws {
        var generator = SystemRandomNumberGenerator()
        var files: [String: Data] = [:]
        for (index, size) in [0, 1, 63, 64, 65, 4096, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 2_500_000].enumerated() {
            files["f\(index).bin"] = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        let root = try tree(files)
        defer { try? FileManager.default.removeItem(at: root) }
        let hashed = try await TreeHasher(threads: 4).hash(tree: root)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["dgst", "-sha256", "-r"] + hashed.map { root.path + "/" + $0.path }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let openssl = output.split(separator: "\n").map { String($0.split(separator: " ")[0]) }
        #expect(openssl == hashed.map(\.sha256))
        #expect(hashed.map(\.size) == hashed.map { Int64(files[$0.path]!.count) })
    }
}
