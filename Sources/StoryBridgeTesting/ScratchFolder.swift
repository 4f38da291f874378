import Foundation

/// A new empty folder under the temporary directory, named `PREFIX-UUID`; the caller removes it.
package func scratchFolder(_ prefix: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// A new folder under the temporary directory, named `PREFIX-UUID`, holding `files` (path → text,
/// in the subfolders their paths name); the caller removes it.
package func scratchFolder(_ prefix: String, files: [String: String]) throws -> URL {
    let root = try scratchFolder(prefix)
    for (path, text) in files {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
    }
    return root
}

/// A new empty folder under the temporary directory, named `PREFIX-UUID`, removed with
/// everything in it when the last reference to this goes: a fixture holds one, so the folder
/// lives exactly as long as the fixture and its copies.
package final class OwnedScratchFolder: Sendable {
    /// The folder.
    package let url: URL

    package init(_ prefix: String) throws {
        url = try scratchFolder(prefix)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a new scratch folder (``scratchFolder(_:)``, named `PREFIX-UUID`) and removes
/// the folder afterwards, whether `body` returns or throws.
package func withScratchFolder<T>(_ prefix: String, _ body: (URL) async throws -> T) async throws -> T {
    let folder = try scratchFolder(prefix)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}
