import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@testable import StoryBridgeSync

@Suite("Delta updates: unchanged files linked folder by folder, parents first")
struct UnchangedFileLinkerTests {
    /// A real zip with files at the root, two and three folders deep, and an empty folder; its
    /// central directory read back, and the files written into an "installed" folder.
    func makeInstalled(slides: Int) throws -> (root: URL, installed: URL, directory: ZipDirectory) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("linker-\(UUID().uuidString)")
        let installed = root.appendingPathComponent("installed")
        try FileManager.default.createDirectory(at: installed, withIntermediateDirectories: true)
        let zip = root.appendingPathComponent("deck.zip")
        let writer = try ZipWriter(path: zip.path)
        var files: [String: Data] = ["index.html": Data("<html>start</html>".utf8)]
        for slide in 1...slides {
            files["slides/s\(slide)/index.html"] = Data("<html>slide \(slide)</html>".utf8)
            files["slides/s\(slide)/media/deep/image.jpg"] = Data(repeating: UInt8(slide % 251), count: 1000 + slide)
        }
        for (name, data) in files.sorted(by: { $0.key < $1.key }) {
            try writer.add(name, data: data, compress: false)
            let file = installed.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file)
        }
        try writer.addFolder("empty/inner/")
        try writer.close()
        return (root, installed, try ZipDirectory.read(file: zip))
    }

    @Test("every file of every depth is a hard link of the installed one; empty folders are made; counts add up")
    func linksEveryDepth() throws {
        let (root, installed, directory) = try makeInstalled(slides: 30)
        defer { try? FileManager.default.removeItem(at: root) }
        let destination = root.appendingPathComponent("new")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        let files = directory.entries.filter { !$0.isDirectory }
        let folders = directory.entries.filter(\.isDirectory)
        let counts = try UnchangedFileLinker(installed: installed, destination: destination).link(files, folders: folders)
        #expect(counts.files == 61)
        #expect(counts.linked == 61)
        #expect(counts.copied == 0)
        #expect(counts.bytes == files.reduce(0) { $0 + $1.uncompressedSize })
        for entry in files {
            var old = stat()
            var new = stat()
            #expect(lstat(installed.appendingPathComponent(entry.name).path, &old) == 0)
            #expect(lstat(destination.appendingPathComponent(entry.name).path, &new) == 0)
            #expect(old.st_ino == new.st_ino, "\(entry.name) is not a link of the installed file")
        }
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: destination.appendingPathComponent("empty/inner").path, isDirectory: &isFolder))
        #expect(isFolder.boolValue)
    }

    @Test("folders come by depth, parents first, each with only its own files")
    func levelsByDepth() throws {
        let (root, _, directory) = try makeInstalled(slides: 3)
        defer { try? FileManager.default.removeItem(at: root) }
        let levels = UnchangedFileLinker.levels(
            files: directory.entries.filter { !$0.isDirectory }, folders: directory.entries.filter(\.isDirectory))
        #expect(levels.map { $0.map(\.path) }.first == [""])
        #expect(levels[0][0].files.map(\.name) == ["index.html"])
        #expect(levels[1].map(\.path) == ["empty", "slides"])
        #expect(levels[2].map(\.path) == ["empty/inner", "slides/s1", "slides/s2", "slides/s3"])
        #expect(levels[2][1].files.map(\.name) == ["slides/s1/index.html"])
        #expect(levels.count == 5)
        #expect(levels[4].map(\.path) == ["slides/s1/media/deep", "slides/s2/media/deep", "slides/s3/media/deep"])
    }

    @Test("an installed file of another size stops the linking with installedFileDiffers")
    func installedFileChanged() throws {
        let (root, installed, directory) = try makeInstalled(slides: 12)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("changed behind our back".utf8).write(to: installed.appendingPathComponent("slides/s7/index.html"))
        let destination = root.appendingPathComponent("new")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        let linker = UnchangedFileLinker(installed: installed, destination: destination)
        let error = #expect(throws: DeltaFallback.self) {
            try linker.link(directory.entries.filter { !$0.isDirectory }, folders: directory.entries.filter(\.isDirectory))
        }
        guard case .installedFileDiffers(let name)? = error else {
            Issue.record("expected installedFileDiffers, got \(String(describing: error))")
            return
        }
        #expect(name == "slides/s7/index.html")
    }
}
