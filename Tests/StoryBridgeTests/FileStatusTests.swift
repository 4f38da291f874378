import Foundation
import StoryBridge
import Testing

@Suite("A file's status from one stat call")
struct FileStatusTests {
    @Test("size, modification time and kind are what FileManager reports; nothing there is nil")
    func matchesFileManager() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-stat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a.js")
        try Data(repeating: 0x61, count: 1234).write(to: file)
        let modified = Date(timeIntervalSince1970: 1_700_000_000.123456)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file.path)

        let status = try #require(FileStatus(path: file.path))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect(status.size == 1234 && status.size == attributes[.size] as? Int)
        #expect(!status.isDirectory)
        let reported = try #require(attributes[.modificationDate] as? Date)
        #expect(abs(status.modified.timeIntervalSince(reported)) < 0.000_001)
        #expect(abs(status.modified.timeIntervalSince(modified)) < 0.000_001)

        #expect(FileStatus(path: folder.path)?.isDirectory == true)
        #expect(FileStatus(path: folder.appendingPathComponent("missing").path) == nil)
    }
}
