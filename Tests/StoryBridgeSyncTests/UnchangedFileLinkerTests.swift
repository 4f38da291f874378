import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@testable import StoryBridgeSync

@Suite("Delta updates: unchanged files linked, each folder made once, parents first")
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

    /// The new, empty folder `new` in `root`: where the linker makes the new revision.
    func makeDestination(in root: URL) throws -> URL {
        let destination = root.appendingPathComponent("new")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        return destination
    }

    @Test("every file of every depth is a hard link of the installed one; empty folders are made; counts add up")
    func linksEveryDepth() throws {
        let (root, installed, directory) = try makeInstalled(slides: 30)
        defer { try? FileManager.default.removeItem(at: root) }
        let destination = try makeDestination(in: root)
        let files = directory.entries.filter { !$0.isDirectory }
        let linker = UnchangedFileLinker(installed: installed, destination: destination)
        let ahead = try linker.linkAhead(DeltaIndex(directory: directory))
        #expect(ahead.reused.count == 61)
        #expect(ahead.differing.isEmpty)
        #expect(ahead.copied.isEmpty)
        let counts = try linker.keep(files, of: ahead)
        try UnchangedFileLinker.makeFolders(directory.entries.filter(\.isDirectory), in: destination)
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

    @Test("linked ahead: the files' parent folders are made at every depth, no folder entry; makeFolders makes folder entries")
    func parentsMadeWithoutFolderEntries() throws {
        let (root, installed, directory) = try makeInstalled(slides: 3)
        defer { try? FileManager.default.removeItem(at: root) }
        let destination = try makeDestination(in: root)
        let ahead = try UnchangedFileLinker(installed: installed, destination: destination).linkAhead(DeltaIndex(directory: directory))
        #expect(ahead.reused.count == 7)
        let made = try FileManager.default.subpathsOfDirectory(atPath: destination.path).filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: destination.appendingPathComponent(path).path, isDirectory: &isFolder)
                && isFolder.boolValue
        }
        let expected = ["slides"] + (1...3).flatMap { ["slides/s\($0)", "slides/s\($0)/media", "slides/s\($0)/media/deep"] }
        #expect(Set(made) == Set(expected))
        try UnchangedFileLinker.makeFolders(directory.entries.filter(\.isDirectory), in: destination)
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: destination.appendingPathComponent("empty/inner").path, isDirectory: &isFolder))
        #expect(isFolder.boolValue)
        // Folders that exist already are left as they are.
        try UnchangedFileLinker.makeFolders(directory.entries.filter(\.isDirectory), in: destination)
    }

    @Test("linked ahead from the index, then kept to the plan: links of changed and removed files go, so do folders left empty")
    func linkedAheadThenKept() throws {
        let (root, installed, directory) = try makeInstalled(slides: 3)
        defer { try? FileManager.default.removeItem(at: root) }
        // Slide 2's markup changes in the new package; its installed copy differs too, which is
        // no error since it is not reused. Slide 3's image is gone from the new package.
        try Data("changed behind our back".utf8).write(to: installed.appendingPathComponent("slides/s2/index.html"))
        let destination = try makeDestination(in: root)
        let linker = UnchangedFileLinker(installed: installed, destination: destination)
        let ahead = try linker.linkAhead(DeltaIndex(directory: directory))
        #expect(ahead.differing == ["slides/s2/index.html"])
        #expect(ahead.reused.count == 6)
        let gone: Set = ["slides/s2/index.html", "slides/s3/media/deep/image.jpg"]
        let reused = directory.entries.filter { !$0.isDirectory && !gone.contains($0.name) }
        let counts = try linker.keep(reused, of: ahead)
        #expect(counts.files == 5)
        #expect(counts.linked == 5)
        let left = try FileManager.default.subpathsOfDirectory(atPath: destination.path)
        let expected = [
            "index.html", "slides", "slides/s1", "slides/s1/index.html", "slides/s1/media", "slides/s1/media/deep",
            "slides/s1/media/deep/image.jpg", "slides/s2", "slides/s2/media", "slides/s2/media/deep", "slides/s2/media/deep/image.jpg",
            "slides/s3", "slides/s3/index.html",
        ]
        #expect(Set(left) == Set(expected))
        // A reused file whose installed copy differed stops the update.
        let error = #expect(throws: DeltaFallback.self) {
            try linker.keep(directory.entries.filter { !$0.isDirectory }, of: ahead)
        }
        #expect(error == .installedFileDiffers("slides/s2/index.html"))
    }

    @Test("installed files of another size, missing or not regular are left out ahead and stop the keep with installedFileDiffers")
    func installedFileChanged() throws {
        let (root, installed, directory) = try makeInstalled(slides: 12)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("changed behind our back".utf8).write(to: installed.appendingPathComponent("slides/s7/index.html"))
        try FileManager.default.removeItem(at: installed.appendingPathComponent("slides/s9/media/deep/image.jpg"))
        let folderInstead = installed.appendingPathComponent("slides/s11/index.html")
        try FileManager.default.removeItem(at: folderInstead)
        try FileManager.default.createDirectory(at: folderInstead, withIntermediateDirectories: false)
        let destination = try makeDestination(in: root)
        let linker = UnchangedFileLinker(installed: installed, destination: destination)
        let ahead = try linker.linkAhead(DeltaIndex(directory: directory))
        #expect(ahead.differing == ["slides/s7/index.html", "slides/s9/media/deep/image.jpg", "slides/s11/index.html"])
        #expect(ahead.reused.count == 25 - 3)
        for name in ahead.differing {
            #expect(!FileManager.default.fileExists(atPath: destination.appendingPathComponent(name).path), "\(name) was linked")
        }
        let error = #expect(throws: DeltaFallback.self) {
            try linker.keep(directory.entries.filter { !$0.isDirectory }, of: ahead)
        }
        guard case .installedFileDiffers(let name)? = error else {
            Issue.record("expected installedFileDiffers, got \(String(describing: error))")
            return
        }
        #expect(ahead.differing.contains(name))
    }
}
