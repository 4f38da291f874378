import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@testable import StoryBridgeSync

@Suite("Delta updates: the central directory reader and the range planner")
struct DeltaZipDirectoryTests {
    /// A real zip of five entries (stored and deflated) in a temporary file.
    func makeZip() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("delta-\(UUID().uuidString).zip")
        let writer = try ZipWriter(path: url.path)
        try writer.add("index.html", text: "<html>start</html>")
        try writer.add("a.html", text: String(repeating: "a", count: 5000))
        try writer.add("b.html", text: String(repeating: "b", count: 5000))
        var noise = SeededBytes(seed: 3)
        try writer.add("media/film.mp4", data: noise.bytes(300_000), compress: false)
        try writer.add("z.html", text: "<html>end</html>")
        try writer.close()
        return url
    }

    @Test("entries, CRCs, sizes and spans are read; the spans tile the archive up to the central directory")
    func readsDirectory() throws {
        let zip = try makeZip()
        defer { try? FileManager.default.removeItem(at: zip) }
        let directory = try ZipDirectory.read(file: zip)
        #expect(directory.entries.map(\.name) == ["index.html", "a.html", "b.html", "media/film.mp4", "z.html"])
        #expect(directory.entries.map(\.method) == [8, 8, 8, 0, 8])
        #expect(directory.entries[3].uncompressedSize == 300_000)
        let ends = directory.spanEnds()
        let starts = directory.entries.map(\.localHeaderOffset)
        #expect(starts.first == 0)
        for (index, start) in starts.enumerated() {
            #expect(ends[start] == (index + 1 < starts.count ? starts[index + 1] : directory.location.offset))
        }
    }

    @Test(
        "the index is kept as the central directory's records and read back the same; a JSON index of an earlier version is still read, and both are swept"
    )
    func indexRoundTrip() throws {
        let zip = try makeZip()
        defer { try? FileManager.default.removeItem(at: zip) }
        let directory = try ZipDirectory.read(file: zip)
        let data = DataDirectory(FileManager.default.temporaryDirectory.appendingPathComponent("index-\(UUID().uuidString)"))
        defer { try? FileManager.default.removeItem(at: data.root) }
        try data.prepare()
        try DeltaIndex.save(directory, forFolder: "new", in: data)
        #expect(DeltaIndex.load(forFolder: "new", in: data) == DeltaIndex(directory: directory))
        #expect(DeltaIndex.load(forFolder: "new", in: data)?.files["media/film.mp4"]?.size == 300_000)
        let legacy = DeltaIndex.folder(in: data).appendingPathComponent("old.json")
        try JSONEncoder().encode(DeltaIndex(directory: directory)).write(to: legacy)
        #expect(DeltaIndex.load(forFolder: "old", in: data) == DeltaIndex(directory: directory))
        #expect(DeltaIndex.load(forFolder: "missing", in: data) == nil)
        // Neither folder exists under presentations/: both indexes are swept.
        DeltaIndex.sweep(in: data)
        #expect(try FileManager.default.contentsOfDirectory(atPath: DeltaIndex.folder(in: data).path).isEmpty)
    }

    @Test("adjacent changed entries are merged into one range, others are reused; a gap wider than the merge gap splits ranges")
    func plansRanges() throws {
        let zip = try makeZip()
        defer { try? FileManager.default.removeItem(at: zip) }
        let directory = try ZipDirectory.read(file: zip)
        var installed = DeltaIndex(directory: directory)
        installed.files["a.html"]?.crc32 ^= 1
        installed.files["b.html"] = nil
        installed.files["z.html"]?.size += 1
        let plan = DeltaPlan(directory: directory, installed: installed, mergeGap: 0)
        #expect(plan.changed.map(\.name) == ["a.html", "b.html", "z.html"])
        #expect(plan.reused.map(\.name) == ["index.html", "media/film.mp4"])
        let film = directory.entries[3]
        #expect(
            plan.ranges == [
                directory.entries[1].localHeaderOffset..<film.localHeaderOffset,
                directory.entries[4].localHeaderOffset..<directory.location.offset,
            ])
        let merged = DeltaPlan(directory: directory, installed: installed, mergeGap: 1 << 20)
        #expect(merged.ranges == [directory.entries[1].localHeaderOffset..<directory.location.offset])
    }

    @Test("ZIP64 markers and compression methods other than stored and deflate are declined with the reason")
    func declinesUnreadable() throws {
        let zip = try makeZip()
        defer { try? FileManager.default.removeItem(at: zip) }
        let bytes = try Data(contentsOf: zip)
        let location = try ZipDirectory.read(file: zip).location
        var listing = bytes.subdata(in: Int(location.offset)..<Int(location.offset + location.size))
        listing[10] = 12  // the first record's method: bzip2
        #expect(throws: DeltaFallback.unreadableArchive("compression method 12")) {
            try ZipDirectory.parse(listing, location: location)
        }
        var tail = bytes.suffix(22)
        tail[tail.startIndex + 16..<tail.startIndex + 20] = Data([0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: DeltaFallback.unreadableArchive("ZIP64")) {
            try ZipDirectory.locate(tail: Data(tail), tailStart: Int64(bytes.count - 22))
        }
        #expect(throws: DeltaFallback.unreadableArchive("no end-of-central-directory record")) {
            try ZipDirectory.locate(tail: Data(repeating: 0, count: 100), tailStart: 0)
        }
    }
}
