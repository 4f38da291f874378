import Foundation
import NIOCore
import StoryBridge

/// The open part file of one download and what is known of its blob: the bytes on disk (the
/// file's length, which every write extends), the validator that lets them be resumed, and the
/// blob's own size once a response told it. Used by one download task at a time.
final class PartFile {
    let partial: PartialDownload
    let presentationId: Int
    /// The size the API declared.
    let declaredSize: Int64
    /// Bytes on disk.
    private(set) var offset: Int64
    private var validator: PartialDownload.Validator
    private let descriptor: Int32
    private let syncEvery: Int64
    private var sinceSync: Int64 = 0

    /// Opens `partial` for `blob`: bytes of another blob (revision, id or declared size) are
    /// discarded; bytes without a strong ETag cannot be resumed and start again. The files are
    /// read, written and synced on the blocking pool (``BlockingIO``), here and in every method.
    init(_ blob: ResumableDownloader.Blob, _ partial: PartialDownload, syncEvery: Int64) async throws(SyncError) {
        self.partial = partial
        presentationId = blob.presentationId
        declaredSize = blob.expectedSize
        self.syncEvery = syncEvery
        let opened = try await BlockingIO.run { () throws(SyncError) in try Self.openFile(blob, partial) }
        validator = opened.validator
        offset = opened.offset
        descriptor = opened.descriptor
    }

    /// The validator, the bytes on disk to keep and the descriptor of the opened part file.
    private static func openFile(
        _ blob: ResumableDownloader.Blob, _ partial: PartialDownload
    ) throws(SyncError) -> (validator: PartialDownload.Validator, offset: Int64, descriptor: Int32) {
        let wanted = PartialDownload.Validator(blobId: blob.blobId, revision: blob.revision, expectedSize: blob.expectedSize, etag: nil)
        var stored = partial.loadValidator()
        if let known = stored,
            known.blobId != wanted.blobId || known.revision != wanted.revision || known.expectedSize != wanted.expectedSize
        {
            partial.discard()
            stored = nil
        }
        let folder = partial.partFile.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .storage("cannot create \(folder.path)")
        }
        let validator = stored ?? wanted
        var offset = validator.etag == nil ? 0 : partial.bytesOnDisk
        if offset > (validator.actualSize ?? blob.expectedSize) { offset = 0 }
        if stored == nil { try partial.saveValidator(wanted) }
        // O_APPEND: every write lands at the end, which ftruncate keeps equal to `offset`.
        let descriptor = open(partial.partFile.path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw .storage("cannot open \(partial.partFile.path): \(String(cString: strerror(errno)))") }
        guard ftruncate(descriptor, off_t(offset)) == 0 else {
            close(descriptor)
            throw .storage("cannot truncate \(partial.partFile.path)")
        }
        return (validator, offset, descriptor)
    }

    deinit {
        close(descriptor)
    }

    /// The blob's size: as a response gave it, else as declared.
    var size: Int64 { validator.actualSize ?? declaredSize }

    /// The blob's size as a response gave it, if one did.
    var knownSize: Int64? { validator.actualSize }

    /// Whether the bytes on disk are the whole blob, resumable from an earlier run.
    var isCompleteAndValidated: Bool { validator.etag != nil && offset == size }

    /// `Range` and `If-Range` for the rest of the blob, when the bytes on disk can be resumed.
    var rangeHeaders: (range: String, ifRange: String)? {
        guard offset > 0, let etag = validator.etag else { return nil }
        return ("bytes=\(offset)-", etag)
    }

    /// A 200 answer: the whole blob follows, `length` bytes (when the server said), validated by `etag`.
    func startWhole(length: Int64?, etag: String?) async throws(SyncError) {
        try await truncate()
        validator.etag = etag
        validator.actualSize = length
        try await saveValidator()
    }

    /// A 206 answer told the blob's size.
    func learn(size: Int64) async throws(SyncError) {
        guard validator.actualSize != size else { return }
        validator.actualSize = size
        try await saveValidator()
    }

    /// The body ended with its last byte: a blob whose length was not given is as long as it came.
    func finishBody() async throws(SyncError) {
        await sync()
        if validator.actualSize == nil {
            validator.actualSize = offset
            try await saveValidator()
        }
    }

    /// Forgets the bytes and the validator's ETag and size: the next request asks for the whole blob.
    func restart() async throws(SyncError) {
        try await truncate()
        validator.etag = nil
        validator.actualSize = nil
        try await saveValidator()
    }

    /// Writes a body part at the end of the file, and syncs the file once ``syncEvery`` bytes
    /// were written since the last sync.
    func append(_ chunk: ByteBuffer) async throws(SyncError) {
        let count = Int64(chunk.readableBytes)
        // The blob's own length bounds it; a body sent without one is bounded by twice the declared size.
        let bound = validator.actualSize ?? (2 * declaredSize + (1 << 20))
        if offset + count > bound {
            throw .sizeMismatch(presentationId: presentationId, expected: validator.actualSize ?? declaredSize, received: offset + count)
        }
        let (descriptor, syncs) = (self.descriptor, sinceSync + count >= syncEvery)
        let failure = await BlockingIO.run { () -> String? in
            let failure = chunk.withUnsafeReadableBytes { PosixIO.writeAll(descriptor, $0) }
            if failure == nil, syncs { fsync(descriptor) }
            return failure
        }
        if let failure { throw .storage("cannot write \(partial.partFile.path): \(failure)") }
        offset += count
        sinceSync = syncs ? 0 : sinceSync + count
    }

    /// Flushes the written bytes to the disk.
    func sync() async {
        let descriptor = self.descriptor
        await BlockingIO.run { _ = fsync(descriptor) }
        sinceSync = 0
    }

    private func truncate() async throws(SyncError) {
        let descriptor = self.descriptor
        guard await BlockingIO.run({ ftruncate(descriptor, 0) == 0 }) else { throw .storage("cannot truncate \(partial.partFile.path)") }
        offset = 0
    }

    private func saveValidator() async throws(SyncError) {
        let (partial, validator) = (self.partial, self.validator)
        try await BlockingIO.run { () throws(SyncError) in try partial.saveValidator(validator) }
    }
}
