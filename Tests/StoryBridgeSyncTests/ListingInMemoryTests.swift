import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@testable import StoryBridgeSync

@Suite("Delta updates: the listing checked in memory by the full install's reader, with the same answers as from a file")
struct ListingInMemoryTests {
    /// A real zip built by `build`, its bytes, and its central directory alone with an end record
    /// (what the delta path checks: the listing received over `Range` requests).
    func zip(_ build: (ZipWriter) throws -> Void) throws -> (file: URL, bytes: Data, listing: Data) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("listing-\(UUID().uuidString).zip")
        let writer = try ZipWriter(path: file.path)
        try build(writer)
        try writer.close()
        let bytes = try Data(contentsOf: file)
        let directory = try ZipDirectory.read(file: file)
        let location = directory.location
        let records = bytes.subdata(in: Int(location.offset)..<Int(location.offset + location.size))
        let listing = records + ZipDirectory.endRecord(count: location.entryCount, size: location.size, offset: 0)
        return (file, bytes, listing)
    }

    /// The file paths, or the error, of `filePaths`.
    func answer(_ body: () throws(PackageError) -> [String]) -> Result<[String], PackageError> {
        do throws(PackageError) { return .success(try body()) } catch { return .failure(error) }
    }

    @Test(
        "the same paths or the same refusal from memory as from the file, for the whole zip and its listing alone",
        arguments: ["good", "zip slip", "absolute", "symbolic link", "duplicate", "file under a file", "no index.html", "non-UTF-8 name"])
    func sameAnswers(_ kind: String) throws {
        let (file, bytes, listing) = try zip { writer in
            if kind != "no index.html" { try writer.add("index.html", text: "<html>start</html>") }
            try writer.add("slides/s1/index.html", text: "<html>one</html>")
            try writer.add("media/video.mp4", data: Data(repeating: 7, count: 5000), compress: false)
            try writer.addFolder("empty/")
            switch kind {
            case "zip slip": try writer.add("../outside.html", text: "x")
            case "absolute": try writer.add("/etc/owned", text: "x")
            case "symbolic link": try writer.addSymlink("slides/link", target: "/etc/passwd")
            case "duplicate": try writer.add("slides/s1/index.html", text: "again")
            case "file under a file": try writer.add("media/video.mp4/inner.txt", text: "a file where a folder would be")
            case "non-UTF-8 name": try writer.add(nameBytes: Array("bad".utf8) + [0xFF, 0xFE], data: Data("x".utf8))
            default: break
            }
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let extractor = PackageExtractor()
        let fromFile = answer { () throws(PackageError) in try extractor.filePaths(zip: file) }
        let listingFile = file.appendingPathExtension("listing")
        try listing.write(to: listingFile)
        defer { try? FileManager.default.removeItem(at: listingFile) }
        let fromListingFile = answer { () throws(PackageError) in try extractor.filePaths(zip: listingFile) }
        // Errors name the archive they come from: compared with the name put back to the file's.
        func named(_ result: Result<[String], PackageError>, _ path: String) -> Result<[String], PackageError> {
            result.mapError { error in
                switch error {
                case .corrupt(_, let reason): .corrupt(path: path, reason: reason)
                case .notAZip: .notAZip(path: path)
                default: error
                }
            }
        }
        let fromBytes = answer { () throws(PackageError) in try extractor.filePaths(zipBytes: bytes, name: "bytes") }
        let fromListing = answer { () throws(PackageError) in try extractor.filePaths(zipBytes: listing, name: "listing") }
        #expect(named(fromBytes, file.path) == fromFile)
        #expect(named(fromListing, listingFile.path) == fromListingFile)
        #expect(fromListing.map { Set($0) } == fromFile.map { Set($0) })
        if kind == "good" {
            #expect(Set(try fromListing.get()) == ["index.html", "slides/s1/index.html", "media/video.mp4"])
        } else {
            #expect(throws: PackageError.self) { try fromListing.get() }
        }
    }

    @Test("bytes that are not a zip, or a listing cut short, are refused from memory as from a file")
    func damagedRefused() throws {
        let (file, _, listing) = try zip { writer in
            try writer.add("index.html", text: "<html>start</html>")
            try writer.add("slides/s1/index.html", text: "<html>one</html>")
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let extractor = PackageExtractor()
        #expect(throws: PackageError.notAZip(path: "junk")) {
            try extractor.filePaths(zipBytes: Data("not a zip at all".utf8), name: "junk")
        }
        // The end record promises more entries than the records hold.
        var cut = listing
        cut.removeSubrange(cut.startIndex..<(cut.startIndex + 10))
        cut.replaceSubrange(cut.startIndex..<(cut.startIndex + 2), with: Data("PK".utf8))
        #expect(throws: PackageError.self) { try extractor.filePaths(zipBytes: cut, name: "cut") }
    }
}
