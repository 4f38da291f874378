import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Streams a blob from its time-limited link (no Authorization header) into a ``PartialDownload``,
/// chunk by chunk as it arrives (memory stays flat), and resumes with `Range` + `If-Range` after
/// any interruption. A link refused with 403 (expired) is replaced by asking for a fresh one; a
/// body longer or shorter than the declared size is refused.
public struct ResumableDownloader: Sendable {
    public let http: HTTPClient
    /// Transient failures in a row (no byte received in between) before giving up.
    public var retry: RetryPolicy
    /// Fresh links asked for in a row before giving up.
    public var linkRenewalLimit = 3
    /// Bytes between two `fsync`s of the part file, so a reboot loses little.
    public var syncEvery: Int64 = 16 << 20
    public var logger: Logger

    public init(http: HTTPClient, retry: RetryPolicy = RetryPolicy(maxAttempts: 8), logger: Logger) {
        self.http = http
        self.retry = retry
        self.logger = logger
    }

    /// What was fetched.
    public struct Outcome: Sendable, Hashable {
        /// Bytes already on disk from an earlier run.
        public var resumedFrom: Int64
        /// Bytes received over the network in this run.
        public var transferred: Int64
        /// Fresh links asked for.
        public var linkRenewals: Int
    }

    /// What to fetch.
    public struct Blob: Sendable {
        public var presentationId: Int
        public var blobId: String?
        public var revision: Int
        public var expectedSize: Int64
        public var link: String
        /// Asks the API for a new link when the current one is refused.
        public var freshLink: @Sendable () async throws(SyncError) -> String

        public init(
            presentationId: Int, blobId: String?, revision: Int, expectedSize: Int64, link: String,
            freshLink: @escaping @Sendable () async throws(SyncError) -> String
        ) {
            self.presentationId = presentationId
            self.blobId = blobId
            self.revision = revision
            self.expectedSize = expectedSize
            self.link = link
            self.freshLink = freshLink
        }
    }

    /// Downloads `blob` into `partial` until the part file holds exactly `expectedSize` bytes.
    /// `progress` gets the bytes on disk after each chunk.
    public func download(
        _ blob: Blob, into partial: PartialDownload, progress: @escaping @Sendable (Int64) -> Void
    ) async throws(SyncError) -> Outcome {
        let wanted = PartialDownload.Validator(
            blobId: blob.blobId, revision: blob.revision, expectedSize: blob.expectedSize, etag: nil)
        var validator = partial.loadValidator()
        if let stored = validator,
            stored.blobId != wanted.blobId || stored.revision != wanted.revision || stored.expectedSize != wanted.expectedSize
        {
            partial.discard()
            validator = nil
        }
        do {
            try FileManager.default.createDirectory(
                at: partial.partFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .storage("cannot create \(partial.partFile.deletingLastPathComponent().path)")
        }
        var offset = validator?.etag == nil ? 0 : partial.bytesOnDisk
        if offset > blob.expectedSize { offset = 0 }
        if validator == nil {
            validator = wanted
            try partial.saveValidator(wanted)
        }
        // O_APPEND: every write lands at the end, which ftruncate keeps equal to `offset`.
        let descriptor = open(partial.partFile.path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw .storage("cannot open \(partial.partFile.path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(offset)) == 0 else { throw .storage("cannot truncate \(partial.partFile.path)") }
        var outcome = Outcome(resumedFrom: offset, transferred: 0, linkRenewals: 0)
        progress(offset)
        var link = blob.link
        var failures = 0
        var linkRenewalsInARow = 0
        while true {
            if offset == blob.expectedSize, validator?.etag != nil { return outcome }
            if Task.isCancelled { throw .interrupted }
            var request = HTTPClientRequest(url: link)
            if offset > 0, let etag = validator?.etag {
                request.headers.add(name: "Range", value: "bytes=\(offset)-")
                request.headers.add(name: "If-Range", value: etag)
            }
            let response: HTTPClientResponse
            do {
                response = try await http.execute(request, deadline: .distantFuture)
            } catch {
                if Task.isCancelled { throw .interrupted }
                failures += 1
                try await backOff(failures, blob: blob, why: NetworkFailure.reason(error), retryAfter: nil)
                continue
            }
            let status = Int(response.status.code)
            switch status {
            case 200:
                if let length = response.headers.first(name: "Content-Length").flatMap(Int64.init), length != blob.expectedSize {
                    throw .sizeMismatch(presentationId: blob.presentationId, expected: blob.expectedSize, received: length)
                }
                offset = 0
                guard ftruncate(descriptor, 0) == 0 else { throw .storage("cannot truncate \(partial.partFile.path)") }
                validator?.etag = Self.strongETag(response.headers)
                try partial.saveValidator(validator ?? wanted)
            case 206:
                guard let range = Self.contentRange(response.headers), range.start == offset else {
                    // Not the part asked for: start again from the first byte.
                    offset = 0
                    guard ftruncate(descriptor, 0) == 0 else { throw .storage("cannot truncate \(partial.partFile.path)") }
                    validator?.etag = nil
                    try partial.saveValidator(validator ?? wanted)
                    continue
                }
                if let total = range.total, total != blob.expectedSize {
                    throw .sizeMismatch(presentationId: blob.presentationId, expected: blob.expectedSize, received: total)
                }
            case 416:
                offset = 0
                guard ftruncate(descriptor, 0) == 0 else { throw .storage("cannot truncate \(partial.partFile.path)") }
                validator?.etag = nil
                try partial.saveValidator(validator ?? wanted)
                failures += 1
                try await backOff(failures, blob: blob, why: "the server refused the range", retryAfter: nil)
                continue
            case 401, 403:
                linkRenewalsInARow += 1
                guard linkRenewalsInARow <= linkRenewalLimit else {
                    throw .downloadFailed(
                        presentationId: blob.presentationId, reason: "fresh download links are refused too (HTTP \(status))")
                }
                logger.info(
                    "download link refused (HTTP \(status)); asking for a fresh one", metadata: ["presentation": "\(blob.presentationId)"])
                link = try await blob.freshLink()
                outcome.linkRenewals += 1
                continue
            case 404, 410:
                throw .downloadFailed(presentationId: blob.presentationId, reason: "the server has no such blob (HTTP \(status))")
            case _ where RetryPolicy.isRetryable(status: status):
                failures += 1
                try await backOff(failures, blob: blob, why: "HTTP \(status)", retryAfter: response.headers.first(name: "Retry-After"))
                continue
            default:
                throw .downloadFailed(presentationId: blob.presentationId, reason: "the server answered HTTP \(status)")
            }
            linkRenewalsInARow = 0
            // Stream the body to disk.
            var sinceSync: Int64 = 0
            var receivedThisTime: Int64 = 0
            do {
                for try await chunk in response.body {
                    let count = Int64(chunk.readableBytes)
                    if offset + count > blob.expectedSize {
                        throw SyncError.sizeMismatch(
                            presentationId: blob.presentationId, expected: blob.expectedSize, received: offset + count)
                    }
                    let failure = chunk.withUnsafeReadableBytes { PosixIO.writeAll(descriptor, $0) }
                    if let failure { throw SyncError.storage("cannot write \(partial.partFile.path): \(failure)") }
                    offset += count
                    receivedThisTime += count
                    outcome.transferred += count
                    sinceSync += count
                    if sinceSync >= syncEvery {
                        fsync(descriptor)
                        sinceSync = 0
                    }
                    progress(offset)
                }
            } catch let error as SyncError {
                throw error
            } catch {
                if Task.isCancelled { throw .interrupted }
                fsync(descriptor)
                failures = receivedThisTime > 0 ? 1 : failures + 1
                try await backOff(failures, blob: blob, why: NetworkFailure.reason(error), retryAfter: nil)
                continue
            }
            fsync(descriptor)
            if offset == blob.expectedSize { return outcome }
            // A body that ended early without an error: resume from where it stopped.
            failures = receivedThisTime > 0 ? 1 : failures + 1
            try await backOff(failures, blob: blob, why: "the body ended early", retryAfter: nil)
        }
    }

    private func backOff(_ failures: Int, blob: Blob, why: String, retryAfter: String?) async throws(SyncError) {
        guard failures < retry.maxAttempts else {
            throw .downloadFailed(presentationId: blob.presentationId, reason: "\(why), \(failures) times in a row")
        }
        let delay = retry.delay(afterAttempt: failures, retryAfter: retryAfter)
        logger.notice("download interrupted (\(why)); resuming", metadata: ["presentation": "\(blob.presentationId)", "delay": "\(delay)"])
        do { try await Task.sleep(for: delay) } catch { throw .interrupted }
    }

    /// The response's ETag when it is strong (a weak one cannot validate a byte range).
    static func strongETag(_ headers: HTTPHeaders) -> String? {
        guard let etag = headers.first(name: "ETag"), !etag.hasPrefix("W/"), etag.hasPrefix("\"") else { return nil }
        return etag
    }

    /// `Content-Range: bytes start-end/total`.
    static func contentRange(_ headers: HTTPHeaders) -> (start: Int64, end: Int64, total: Int64?)? {
        guard let value = headers.first(name: "Content-Range"), value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst("bytes ".count)
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]) else { return nil }
        return (start, end, Int64(halves[1]))
    }
}
