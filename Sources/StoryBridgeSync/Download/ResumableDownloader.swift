import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Streams a blob from its time-limited link (no Authorization header) into a ``PartialDownload``,
/// chunk by chunk as it arrives (memory stays flat), over ``BlobHTTP`` so every byte received
/// before a drop is on disk, and resumes with `Range` + `If-Range` after any interruption. Every
/// request carries `x-ms-version` (Azure Blob Storage needs it for an open-ended range and ignores
/// `If-Range` without one). A link refused with 401/403 (expired) is replaced by asking for a
/// fresh one; when the fresh one names another package revision, blob or size, the download stops
/// with ``SyncError/packageChanged(presentationId:)`` and its bytes are discarded, so a package
/// republished mid-download is never spliced from two blobs.
///
/// The blob's own length (`Content-Length`, `Content-Range`) is what the download completes to;
/// when it differs from the declared size, ``Outcome/size`` says so and the caller decides.
package struct ResumableDownloader: Sendable {
    /// Transient failures in a row (no byte received in between) before giving up.
    package var retry: RetryPolicy
    /// Fresh links asked for in a row before giving up.
    var linkRenewalLimit = 3
    /// Redirects followed for one request.
    var redirectLimit = 5
    /// Bytes between two `fsync`s of the part file, so a reboot loses little.
    package var syncEvery: Int64 = 16 << 20
    package var connectTimeout: TimeAmount = .seconds(10)
    /// A connection that delivers nothing for this long is closed and the download resumed.
    package var readTimeout: TimeAmount = .seconds(30)
    /// The speed limit shared with the run's other downloads (`--limit-rate`); nil for none.
    package var rateLimiter: TransferRateLimiter?
    package var logger: Logger

    /// The Azure Blob Storage API version sent as `x-ms-version`.
    package static let azureStorageVersion = "2020-04-08"

    package init(retry: RetryPolicy = RetryPolicy(maxAttempts: 8), logger: Logger) {
        self.retry = retry
        self.logger = logger
    }

    /// What was fetched.
    package struct Outcome: Sendable, Hashable {
        /// Bytes already on disk from an earlier run.
        var resumedFrom: Int64
        /// Bytes received over the network in this run.
        package var transferred: Int64
        /// Fresh links asked for.
        package var linkRenewals: Int
        /// The blob's size as the server sent it (may differ from the declared size).
        package var size: Int64
    }

    /// A fresh link and what the API says it points at.
    package struct RenewedLink: Sendable, Hashable {
        package var link: String
        package var revision: Int
        package var blobId: String?
        package var size: Int64

        package init(link: String, revision: Int, blobId: String?, size: Int64) {
            self.link = link
            self.revision = revision
            self.blobId = blobId
            self.size = size
        }
    }

    /// What to fetch.
    package struct Blob: Sendable {
        package var presentationId: Int
        package var blobId: String?
        package var revision: Int
        /// The size the API declared.
        package var expectedSize: Int64
        package var link: String
        /// Asks the API for a new link when the current one is refused.
        package var freshLink: @Sendable () async throws(SyncError) -> RenewedLink

        package init(
            presentationId: Int, blobId: String?, revision: Int, expectedSize: Int64, link: String,
            freshLink: @escaping @Sendable () async throws(SyncError) -> RenewedLink
        ) {
            self.presentationId = presentationId
            self.blobId = blobId
            self.revision = revision
            self.expectedSize = expectedSize
            self.link = link
            self.freshLink = freshLink
        }
    }

    /// How one request ended.
    enum Step {
        /// The body is complete.
        case complete
        /// The connection closed before the end of the body (`reason` for the log).
        case cut(String)
        /// The server did not send the range asked for: start again from the first byte.
        case restartFromZero
        case redirect(String)
        case linkRefused(Int)
        case retryLater(status: Int, retryAfter: String?)
    }

    /// Downloads `blob` into `partial` until the part file holds the whole blob. `progress` gets
    /// the bytes on disk after each chunk.
    package func download(
        _ blob: Blob, into partial: PartialDownload, progress: @escaping @Sendable (Int64) -> Void
    ) async throws(SyncError) -> Outcome {
        let file = try await PartFile(blob, partial, syncEvery: syncEvery)
        var outcome = Outcome(resumedFrom: file.offset, transferred: 0, linkRenewals: 0, size: file.size)
        progress(file.offset)
        var link = blob.link
        var failures = 0
        var linkRenewalsInARow = 0
        var redirects = 0
        while true {
            if file.isCompleteAndValidated {
                outcome.size = file.offset
                return outcome
            }
            if Task.isCancelled { throw .interrupted }
            guard let target = BlobHTTP.Target(link) else {
                throw .downloadFailed(presentationId: blob.presentationId, reason: "the download link is not an http(s) URL")
            }
            var headers = HTTPHeaders()
            headers.add(name: "x-ms-version", value: Self.azureStorageVersion)
            if let range = file.rangeHeaders {
                headers.add(name: "Range", value: range.range)
                headers.add(name: "If-Range", value: range.ifRange)
            }
            var receivedThisTime: Int64 = 0
            let step: Step
            do {
                step = try await BlobHTTP.get(target, headers: headers, connectTimeout: connectTimeout, readTimeout: readTimeout) {
                    parts in
                    try await receive(&parts, blob: blob, file: file, received: &receivedThisTime, outcome: &outcome, progress: progress)
                }
            } catch let error as SyncError {
                throw error
            } catch {
                if Task.isCancelled { throw .interrupted }
                await file.sync()
                failures = receivedThisTime > 0 ? 1 : failures + 1
                try await backOff(failures, blob: blob, why: NetworkFailure.reason(error), retryAfter: nil)
                continue
            }
            if case .linkRefused = step {} else { linkRenewalsInARow = 0 }
            if case .redirect = step {} else { redirects = 0 }
            switch step {
            case .complete:
                try await file.finishBody()
                if file.offset == file.size {
                    outcome.size = file.offset
                    return outcome
                }
                failures = receivedThisTime > 0 ? 1 : failures + 1
                try await backOff(failures, blob: blob, why: "the body ended early", retryAfter: nil)
            case .cut(let reason):
                await file.sync()
                failures = receivedThisTime > 0 ? 1 : failures + 1
                try await backOff(failures, blob: blob, why: reason, retryAfter: nil)
            case .restartFromZero:
                try await file.restart()
                failures += 1
                try await backOff(failures, blob: blob, why: "the server did not send the range asked for", retryAfter: nil)
            case .redirect(let location):
                redirects += 1
                guard redirects <= redirectLimit else {
                    throw .downloadFailed(presentationId: blob.presentationId, reason: "more than \(redirectLimit) redirects")
                }
                link = URL(string: location, relativeTo: URL(string: link))?.absoluteString ?? location
            case .linkRefused(let status):
                linkRenewalsInARow += 1
                guard linkRenewalsInARow <= linkRenewalLimit else {
                    throw .downloadFailed(
                        presentationId: blob.presentationId, reason: "fresh download links are refused too (HTTP \(status))")
                }
                logger.info(
                    "download link refused (HTTP \(status)); asking for a fresh one", metadata: ["presentation": "\(blob.presentationId)"])
                let renewed = try await blob.freshLink()
                outcome.linkRenewals += 1
                guard renewed.revision == blob.revision, renewed.blobId == blob.blobId, renewed.size == blob.expectedSize else {
                    // Republished while we were downloading: these bytes belong to the old blob.
                    partial.discard()
                    throw .packageChanged(presentationId: blob.presentationId)
                }
                link = renewed.link
            case .retryLater(let status, let retryAfter):
                failures += 1
                try await backOff(failures, blob: blob, why: "HTTP \(status)", retryAfter: retryAfter)
            }
        }
    }

    /// Reads one response: its head decides what happens; a 200 or 206 body goes to the part file
    /// part by part.
    private func receive(
        _ parts: inout BlobHTTP.Parts, blob: Blob, file: PartFile, received: inout Int64, outcome: inout Outcome,
        progress: @Sendable (Int64) -> Void
    ) async throws -> Step {
        guard case .head(let head)? = try await parts.next() else { return .cut("the server closed the connection before answering") }
        let status = Int(head.status.code)
        switch status {
        case 200:
            try await file.startWhole(
                length: head.headers.first(name: "Content-Length").flatMap(Int64.init), etag: Self.strongETag(head.headers))
        case 206:
            guard let range = Self.contentRange(head.headers), range.start == file.offset,
                range.total == nil || file.knownSize == nil || range.total == file.knownSize
            else { return .restartFromZero }
            if let total = range.total { try await file.learn(size: total) }
        case 301, 302, 303, 307, 308:
            guard let location = head.headers.first(name: "Location") else {
                throw SyncError.downloadFailed(presentationId: blob.presentationId, reason: "a redirect without a Location")
            }
            return .redirect(location)
        case 416:
            return .restartFromZero
        case 401, 403:
            return .linkRefused(status)
        case 404, 410:
            throw SyncError.downloadFailed(presentationId: blob.presentationId, reason: "the server has no such blob (HTTP \(status))")
        case _ where RetryPolicy.isRetryable(status: status):
            return .retryLater(status: status, retryAfter: head.headers.first(name: "Retry-After"))
        default:
            throw SyncError.downloadFailed(presentationId: blob.presentationId, reason: "the server answered HTTP \(status)")
        }
        var bytes: Int64 = 0
        defer {
            received += bytes
            outcome.transferred += bytes
        }
        return try await receiveBody(&parts, into: file, counting: &bytes, progress: progress)
            ? .complete : .cut("the server closed the connection")
    }

    /// Writes the body of the response being read into `file`, part by part, reporting progress
    /// and paying the rate limiter; `bytes` counts what was written, also when a part fails.
    /// Returns whether the body ended (`false`: the connection closed before its end).
    func receiveBody(
        _ parts: inout BlobHTTP.Parts, into file: PartFile, counting bytes: inout Int64, progress: (Int64) -> Void
    ) async throws -> Bool {
        while let part = try await parts.next() {
            switch part {
            case .head: continue
            case .body(let chunk):
                try await file.append(chunk)
                bytes += Int64(chunk.readableBytes)
                progress(file.offset)
                try await rateLimiter?.pay(chunk.readableBytes)
            case .end:
                return true
            }
        }
        return false
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
