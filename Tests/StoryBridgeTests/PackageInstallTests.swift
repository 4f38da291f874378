import Foundation
import StoryBridgeTesting
import Testing

@testable import StoryBridge

/// A fresh data directory and helpers to build packages in it.
struct PackageLab {
    let folder: URL
    let directory: DataDirectory

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-lab-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        directory = DataDirectory(folder.appendingPathComponent("data"))
    }

    func store() throws -> LibraryStore { try LibraryStore(directory: directory) }

    /// Builds a zip with `build`, returning its URL.
    func zip(_ name: String = "deck.zip", _ build: (ZipWriter) throws -> Void) throws -> URL {
        let url = folder.appendingPathComponent(name)
        let writer = try ZipWriter(path: url.path)
        try build(writer)
        try writer.close()
        return url
    }

    /// A small valid presentation package.
    func validPackage(_ name: String = "deck.zip", title: String = "v1") throws -> URL {
        try zip(name) { zip in
            try zip.add("index.html", text: TemporaryPresentation.slide(links: ["b.html"], next: "b.html", title: title))
            try zip.add("b.html", text: TemporaryPresentation.slide(links: ["index.html"], previous: "index.html", title: "B"))
            try zip.addFolder("css")
            try zip.add("css/site.css", text: "body { color: black }")
            try zip.add("mediafiles/film.mp4", data: Data(repeating: 7, count: 1000), compress: false)
            try zip.add("mediafiles/guide.pdf", text: "%PDF-1.4")
        }
    }

    /// The folders in presentations/ and staging/.
    func leftovers() -> [String] {
        let fileManager = FileManager.default
        return ((try? fileManager.contentsOfDirectory(atPath: directory.presentations.path)) ?? [])
            + ((try? fileManager.contentsOfDirectory(atPath: directory.staging.path)) ?? [])
    }
}

@Suite("Installing packages")
struct PackageInstallTests {
    @Test("a valid package is installed with its catalog: slides, links, swipe targets, map and media")
    func installs() throws {
        let lab = try PackageLab()
        let store = try lab.store()
        let entry = try store.install(zip: try lab.validPackage(), options: .init(id: 5, name: "Deck"))
        #expect(entry.presentation.id == 5)
        #expect(entry.presentation.name == "Deck")
        #expect(entry.presentation.revision == 1)
        #expect(entry.fileCount == 5)
        #expect(entry.presentation.slides.map(\.name) == ["b.html", "index.html"])
        #expect(entry.presentation.mediaFiles.map(\.fileName) == ["film.mp4", "guide.pdf"])
        // A new store (a new process) reads the same catalog back from SQLite.
        let reread = try #require(try lab.store().entry(id: 5))
        #expect(reread.presentation.slide(named: "index.html")?.metadata.links == ["b.html"])
        #expect(reread.presentation.slide(named: "b.html")?.metadata.swipePrevious == "index.html")
        #expect(reread.presentation.map.json == ["index.html": ["b.html"], "b.html": []])
        #expect(FileManager.default.fileExists(atPath: reread.presentation.root.appendingPathComponent("css/site.css").path))
        #expect(try lab.store().database.appliedMigrations().contains("v1-catalog"))
    }

    @Test("ids default to the next free one, and a reinstall replaces the old copy and bumps the revision")
    func reinstall() throws {
        let lab = try PackageLab()
        let store = try lab.store()
        let first = try store.install(zip: try lab.validPackage("a.zip"), options: .init(name: "Kept name"))
        let second = try store.install(zip: try lab.validPackage("b.zip"))
        #expect(first.presentation.id == 1)
        #expect(second.presentation.id == 2)
        let again = try store.install(zip: try lab.validPackage("a2.zip", title: "v2"), options: .init(id: 1))
        #expect(again.presentation.revision == 2)
        #expect(again.presentation.name == "Kept name")
        #expect(!FileManager.default.fileExists(atPath: first.presentation.root.path))
        #expect(try store.entries().count == 2)
        #expect(lab.leftovers().count == 2)
    }

    @Test("removing deletes the catalog row and the folder")
    func remove() throws {
        let lab = try PackageLab()
        let store = try lab.store()
        let entry = try store.install(zip: try lab.validPackage())
        try store.remove(id: entry.presentation.id)
        #expect(try store.entries().isEmpty)
        #expect(lab.leftovers().isEmpty)
        #expect(throws: LibraryError.notInstalled(1)) { try store.remove(id: 1) }
    }

    /// Installs `zip` expecting `expected`, and checks nothing was left and the catalog is unchanged.
    func expectRefusal(
        _ lab: PackageLab, _ zip: URL, limits: PackageLimits = PackageLimits(),
        _ matches: (PackageError) -> Bool
    ) throws {
        let store = try lab.store()
        let before = try store.entries().map(\.presentation.id)
        var options = LibraryStore.InstallOptions()
        options.limits = limits
        #expect {
            _ = try store.install(zip: zip, options: options)
        } throws: { error in
            guard let packageError = error as? PackageError else { return false }
            return matches(packageError)
        }
        #expect(try store.entries().map(\.presentation.id) == before)
        #expect(lab.leftovers().count == before.count)
    }

    @Test("zip-slip entries ('../', absolute paths, backslashes) are refused")
    func zipSlip() throws {
        let lab = try PackageLab()
        for hostile in ["../evil.html", "css/../../evil.html", "/etc/evil", "css\\..\\..\\evil", "C:/evil"] {
            let zip = try lab.zip { zip in
                try zip.add("index.html", text: "<html></html>")
                try zip.add(hostile, text: "pwned")
            }
            try expectRefusal(lab, zip) { error in
                if case .unsafeEntry(let name, _) = error { return name == hostile }
                return false
            }
        }
        #expect(!FileManager.default.fileExists(atPath: lab.folder.appendingPathComponent("evil.html").path))
    }

    @Test("symbolic links in a package are refused")
    func symlink() throws {
        let lab = try PackageLab()
        let zip = try lab.zip { zip in
            try zip.add("index.html", text: "<html></html>")
            try zip.addSymlink("passwd", target: "/etc/passwd")
        }
        try expectRefusal(lab, zip) { error in
            error == .unsafeEntry(name: "passwd", reason: "symbolic links are not allowed in packages")
        }
    }

    @Test("duplicate names, and a file where a folder must be, are refused")
    func duplicates() throws {
        let lab = try PackageLab()
        let twice = try lab.zip("twice.zip") { zip in
            try zip.add("index.html", text: "<html>1</html>")
            try zip.add("index.html", text: "<html>2</html>")
        }
        try expectRefusal(lab, twice) { $0 == .duplicateEntry("index.html") }
        let clash = try lab.zip("clash.zip") { zip in
            try zip.add("index.html", text: "<html></html>")
            try zip.add("css", text: "a file")
            try zip.add("css/site.css", text: "body{}")
        }
        try expectRefusal(lab, clash) { $0 == .duplicateEntry("css") }
    }

    @Test("names that are not UTF-8 are refused")
    func nonUTF8() throws {
        let lab = try PackageLab()
        let zip = try lab.zip { zip in
            try zip.add("index.html", text: "<html></html>")
            try zip.add(nameBytes: [0x66, 0xFF, 0xFE, 0x2E, 0x68], data: Data("x".utf8))
        }
        try expectRefusal(lab, zip) { if case .nonUTF8Name = $0 { return true } else { return false } }
    }

    @Test("a package without a root index.html is refused, even with one in a sub-folder")
    func missingIndex() throws {
        let lab = try PackageLab()
        let zip = try lab.zip { zip in try zip.add("deck/index.html", text: "<html></html>") }
        try expectRefusal(lab, zip) { $0 == .missingIndex }
    }

    @Test("too many entries and too many bytes are refused before anything is written")
    func limits() throws {
        let lab = try PackageLab()
        let zip = try lab.validPackage()
        try expectRefusal(lab, zip, limits: PackageLimits(maxEntries: 3)) { $0 == .tooManyEntries(limit: 3) }
        try expectRefusal(lab, zip, limits: PackageLimits(maxUncompressedBytes: 500)) { $0 == .tooLarge(limitBytes: 500) }
    }

    @Test("a zip bomb is stopped by the compression ratio while streaming")
    func bomb() throws {
        let lab = try PackageLab()
        let zip = try lab.zip { zip in
            try zip.add("index.html", text: "<html></html>")
            try zip.add("mediafiles/zeros.mp4", count: 64 << 20) { _, size in Data(count: size) }
        }
        let zipSize = try #require(try FileManager.default.attributesOfItem(atPath: zip.path)[.size] as? Int)
        #expect(zipSize < 1 << 20)
        try expectRefusal(lab, zip) { error in
            if case .suspiciousRatio(let name, let ratio, _) = error { return name == "mediafiles/zeros.mp4" && ratio > 200 }
            return false
        }
    }

    @Test("a bomb that lies about its size in the directory is stopped by the byte budget")
    func lyingSizes() throws {
        let lab = try PackageLab()
        let zip = try lab.zip { zip in
            try zip.add("index.html", text: "<html></html>")
            try zip.add("big.bin", count: 3 << 20) { offset, size in
                Data((0..<size).map { UInt8(truncatingIfNeeded: ($0 &+ Int(offset)) &* 2_654_435_761 >> 7) })
            }
        }
        // Rewrite the declared uncompressed size of big.bin in the central directory to 10 bytes.
        var bytes = try Data(contentsOf: zip)
        let signature = Data([0x50, 0x4B, 0x01, 0x02])
        var search = bytes.startIndex
        while let range = bytes.range(of: signature, in: search..<bytes.endIndex) {
            let nameLength = Int(bytes[range.lowerBound + 28]) | Int(bytes[range.lowerBound + 29]) << 8
            let name = String(decoding: bytes[(range.lowerBound + 46)..<(range.lowerBound + 46 + nameLength)], as: UTF8.self)
            if name == "big.bin" {
                // The sizes live in the zip64 extra field (the writer always uses zip64): patch both.
                let extraStart = range.lowerBound + 46 + nameLength
                let uncompressed = extraStart + 4
                for offset in 0..<8 { bytes[uncompressed + offset] = offset == 0 ? 10 : 0 }
            }
            search = range.upperBound
        }
        try bytes.write(to: zip)
        try expectRefusal(lab, zip, limits: PackageLimits(maxUncompressedBytes: 1 << 20)) { error in
            switch error {
            case .tooLarge, .corrupt: return true
            default: return false
            }
        }
    }

    @Test("truncated and corrupted archives are refused with a specific message")
    func damaged() throws {
        let lab = try PackageLab()
        let good = try Data(contentsOf: try lab.validPackage())
        let truncated = lab.folder.appendingPathComponent("truncated.zip")
        try good.prefix(good.count - 40).write(to: truncated)
        try expectRefusal(lab, truncated) { if case .corrupt = $0 { return true } else { return false } }

        var flipped = good
        // Damage the compressed bytes of the first entry (index.html), after its local header.
        for offset in 60..<90 { flipped[offset] ^= 0x5A }
        let corrupt = lab.folder.appendingPathComponent("corrupt.zip")
        try flipped.write(to: corrupt)
        try expectRefusal(lab, corrupt) { if case .corrupt = $0 { return true } else { return false } }
    }

    @Test("files that are not zips are refused", arguments: ["hello, I am text", "", "PK"])
    func notAZip(contents: String) throws {
        let lab = try PackageLab()
        let file = lab.folder.appendingPathComponent("fake.zip")
        try contents.write(to: file, atomically: true, encoding: .utf8)
        try expectRefusal(lab, file) { error in
            switch error {
            case .notAZip, .corrupt: return true
            default: return false
            }
        }
    }

    @Test("a failed reinstall leaves the installed copy untouched")
    func failedReinstall() throws {
        let lab = try PackageLab()
        let store = try lab.store()
        let original = try store.install(zip: try lab.validPackage(), options: .init(id: 1))
        let broken = try lab.zip("broken.zip") { zip in try zip.add("../x", text: "no") }
        #expect(throws: (any Error).self) { _ = try store.install(zip: broken, options: .init(id: 1)) }
        let still = try #require(try store.entry(id: 1))
        #expect(still.presentation.root == original.presentation.root)
        #expect(still.presentation.revision == 1)
        #expect(FileManager.default.fileExists(atPath: still.presentation.root.appendingPathComponent("index.html").path))
    }

    @Test("leftovers of an interrupted install are swept when the library opens")
    func sweep() throws {
        let lab = try PackageLab()
        _ = try lab.store().install(zip: try lab.validPackage())
        let stray = lab.directory.presentations.appendingPathComponent("stray")
        let staging = lab.directory.staging.appendingPathComponent("half")
        try FileManager.default.createDirectory(at: stray, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        _ = try lab.store()
        #expect(!FileManager.default.fileExists(atPath: stray.path))
        #expect(!FileManager.default.fileExists(atPath: staging.path))
        #expect(lab.leftovers().count == 1)
    }

    @Test("progress is reported up to the total")
    func progress() throws {
        let lab = try PackageLab()
        let zip = try lab.zip { zip in
            try zip.add("index.html", text: "<html></html>")
            try zip.add("mediafiles/a.mp4", count: 5 << 20, compress: false) { _, size in Data(repeating: 1, count: size) }
        }
        let reports = ReportLog()
        _ = try lab.store().install(zip: zip) { done, total in reports.add(done, total) }
        let last = try #require(reports.all.last)
        #expect(last.0 == last.1)
        #expect(last.1 == (5 << 20) + 13)
        #expect(reports.all.count >= 5)
    }
}

final class ReportLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Int64, Int64)] = []
    func add(_ done: Int64, _ total: Int64) { lock.lock(); items.append((done, total)); lock.unlock() }
    var all: [(Int64, Int64)] { lock.lock(); defer { lock.unlock() }; return items }
}
