import Foundation

/// A new empty folder under the temporary directory, named `PREFIX-UUID`; the caller removes it.
package func scratchFolder(_ prefix: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
