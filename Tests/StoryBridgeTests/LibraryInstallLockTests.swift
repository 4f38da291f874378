import Foundation
import StoryBridge
import Testing

@Suite("Opening a library never sweeps away an install in progress")
struct LibraryInstallLockTests {
    @Test("a folder no row names survives an opening while library.lock is held, and is swept at the next one")
    func sweepSkipsWhileInstalling() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-lock-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = DataDirectory(folder)
        _ = try LibraryStore(directory: directory)
        // What an install in another process has at that moment: its new folder, no row yet.
        let unnamed = directory.presentations.appendingPathComponent(UUID().uuidString.lowercased())
        try FileManager.default.createDirectory(at: unnamed, withIntermediateDirectories: true)
        try Data("<html></html>".utf8).write(to: unnamed.appendingPathComponent("index.html"))
        let inStaging = directory.staging.appendingPathComponent("unpacking")
        try FileManager.default.createDirectory(at: inStaging, withIntermediateDirectories: true)

        // The installer's lock, taken on a descriptor of its own as another process would.
        let descriptor = open(directory.root.appendingPathComponent("library.lock").path, O_RDWR | O_CREAT, 0o644)
        #expect(descriptor >= 0)
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        _ = try LibraryStore(directory: directory)
        #expect(FileManager.default.fileExists(atPath: unnamed.appendingPathComponent("index.html").path))
        #expect(FileManager.default.fileExists(atPath: inStaging.path))

        // The install died without writing its row: the kernel drops its lock, the next opening sweeps.
        close(descriptor)
        _ = try LibraryStore(directory: directory)
        #expect(!FileManager.default.fileExists(atPath: unnamed.path))
        #expect(!FileManager.default.fileExists(atPath: inStaging.path))
    }
}
