import Foundation
import Testing

@testable import StoryBridge

#if canImport(Glibc)
    import Glibc
#endif

/// ``VerifiedFacts/preserving(folders:in:_:)`` on a real folder: the facts follow the change
/// times an operation's links give the files, a file changed before it loses its facts, and at no
/// moment does the disk hold facts the operation has made stale, so a kill inside it (or an
/// operation that fails half done) never leaves any.
@Suite("Verified facts kept across storybridge's own links and unlinks")
struct VerifiedFactsPreservingTests {
    /// A data folder with presentation folder `rev` holding three files and their facts, as an
    /// install writes them.
    static func installed() throws -> (directory: DataDirectory, folder: URL, facts: VerifiedFacts) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("facts-\(UUID().uuidString)")
        let directory = DataDirectory(root)
        let folder = directory.presentations.appendingPathComponent("rev")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var facts = VerifiedFacts(manifestHash: "manifest", files: [:])
        for name in ["a.html", "b.css", "c.js"] {
            try Data("content of \(name)".utf8).write(to: folder.appendingPathComponent(name))
            facts.files[name] = VerifiedFile(facts: try #require(Self.facts(of: name, in: folder)), sha256: "hash of \(name)")
        }
        try facts.save(forFolder: "rev", in: directory)
        return (directory, folder, facts)
    }

    static func facts(of name: String, in folder: URL) -> FileFacts? {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY)
        defer { close(descriptor) }
        return FileFacts.of(name, in: descriptor)
    }

    /// Links every file of `folder` into a sibling folder `mirror`: each inode's change time moves.
    static func linkAll(of folder: URL, into mirror: URL) throws {
        try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            #expect(link(folder.appendingPathComponent(name).path, mirror.appendingPathComponent(name).path) == 0)
        }
    }

    /// Waits until the clock the kernel stamps change times with has moved past `facts`', so a
    /// link is seen to change them.
    static func afterChangeTimeTicks(_ facts: VerifiedFacts) async throws {
        let latest = facts.files.values.map(\.facts.ctimeNs).max() ?? 0
        while true {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME_COARSE, &now)
            if Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) > latest { return }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test("files linked by the operation keep their facts with their new change time; one written to before it loses them")
    func followsTheLinks() async throws {
        let (directory, folder, facts) = try Self.installed()
        defer { try? FileManager.default.removeItem(at: directory.root) }
        try await Self.afterChangeTimeTicks(facts)
        // Changed before the operation, outside it: its facts no longer hold.
        try Data("changed".utf8).write(to: folder.appendingPathComponent("c.js"))
        try VerifiedFacts.preserving(folders: ["rev"], in: directory) {
            try Self.linkAll(of: folder, into: directory.root.appendingPathComponent("tree"))
        }
        let after = try #require(VerifiedFacts.load(forFolder: "rev", in: directory))
        #expect(after.manifestHash == "manifest")
        #expect(after.files.keys.sorted() == ["a.html", "b.css"])
        for (name, file) in after.files {
            let now = try #require(Self.facts(of: name, in: folder))
            #expect(file.facts == now, "\(name): the facts follow the link")
            #expect(file.facts.ctimeNs != facts.files[name]?.facts.ctimeNs, "\(name): the link moved its change time")
            #expect(file.sha256 == facts.files[name]?.sha256)
        }
    }

    @Test("while the operation runs no facts file is on disk, so a kill inside it leaves none that are stale")
    func absentWhileRunning() throws {
        let (directory, _, _) = try Self.installed()
        defer { try? FileManager.default.removeItem(at: directory.root) }
        let seen = VerifiedFacts.preserving(folders: ["rev"], in: directory) {
            VerifiedFacts.load(forFolder: "rev", in: directory)
        }
        #expect(seen == nil)
        #expect(VerifiedFacts.load(forFolder: "rev", in: directory)?.files.count == 3)
        // A folder without facts stays without.
        try FileManager.default.createDirectory(
            at: directory.presentations.appendingPathComponent("other"), withIntermediateDirectories: true)
        VerifiedFacts.preserving(folders: ["other"], in: directory) {}
        #expect(VerifiedFacts.load(forFolder: "other", in: directory) == nil)
    }

    struct HalfDone: Error {}

    @Test("an operation that throws after linking leaves facts that hold, with the new change times")
    func throwsHalfDone() async throws {
        let (directory, folder, facts) = try Self.installed()
        defer { try? FileManager.default.removeItem(at: directory.root) }
        try await Self.afterChangeTimeTicks(facts)
        #expect(throws: HalfDone.self) {
            try VerifiedFacts.preserving(folders: ["rev"], in: directory) {
                try Self.linkAll(of: folder, into: directory.root.appendingPathComponent("partial"))
                throw HalfDone()
            }
        }
        let after = try #require(VerifiedFacts.load(forFolder: "rev", in: directory))
        #expect(after.files.count == 3)
        for (name, file) in after.files { #expect(file.facts == Self.facts(of: name, in: folder), "\(name)") }
    }
}
