import Foundation

/// A download in progress on disk: `<name>.part` (the bytes received so far) and `<name>.json`
/// (what they are: blob, revision, declared size, and the server's strong ETag, the validator a
/// resume sends in `If-Range`). Both survive Ctrl-C, SIGKILL and reboots; the next run resumes
/// from the part file's length when the validator still describes the same blob.
package struct PartialDownload: Sendable {
    /// What the bytes are.
    struct Validator: Codable, Sendable, Hashable {
        package var blobId: String?
        package var revision: Int
        package var expectedSize: Int64
        package var etag: String?
        /// The blob's size as the server sent it (`Content-Length`, `Content-Range`), when known.
        var actualSize: Int64?
    }

    package let partFile: URL
    package let validatorFile: URL

    /// The partial download of a package revision.
    package init(folder: URL, presentationId: Int, revision: Int) {
        self.init(folder: folder, name: "\(presentationId)-r\(revision).zip")
    }

    /// The partial download of a media file.
    package init(folder: URL, presentationId: Int, mediaFileId: Int, revision: Int) {
        self.init(folder: folder, name: "\(presentationId)-media\(mediaFileId)-r\(revision)")
    }

    init(folder: URL, name: String) {
        partFile = folder.appendingPathComponent(name + ".part")
        validatorFile = folder.appendingPathComponent(name + ".json")
    }

    /// The stored validator, if any.
    func loadValidator() -> Validator? {
        guard let data = try? Data(contentsOf: validatorFile) else { return nil }
        return try? JSONDecoder().decode(Validator.self, from: data)
    }

    func saveValidator(_ validator: Validator) throws(SyncError) {
        let data: Data
        do { data = try JSONEncoder().encode(validator) } catch { throw .storage("cannot encode a download validator") }
        try AtomicFile.write(data, to: validatorFile)
    }

    /// Bytes on disk so far.
    package var bytesOnDisk: Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: partFile.path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Removes both files.
    package func discard() {
        unlink(partFile.path)
        unlink(validatorFile.path)
    }

    /// Removes every partial download of a presentation.
    static func discardAll(presentationId: Int, in folder: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix("\(presentationId)-") {
            unlink(folder.appendingPathComponent(name).path)
        }
    }
}
