import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// Ways to make the server misbehave on purpose, for testing clients (the `--test-…` options).
package struct TestFaults: Sendable, Hashable {
    /// Blob responses close the connection after this many body bytes.
    package var dropAfterBytes: Int?
    /// Only the first this-many blob responses are cut short (all when `nil`).
    package var dropTimes: Int?
    /// The first this-many requests of ``failOn`` answer ``failStatus`` with ``retryAfter``.
    package var failFirst = 0
    /// The status of those failures: 503 (the default), 500, 502, 504 or 429.
    package var failStatus = 503
    /// Their `Retry-After` in seconds; none when nil.
    package var retryAfter: Int? = 1
    /// Which requests ``failFirst`` counts.
    package var failOn = FaultScope.all
    /// Refresh grants answer 400 `invalid_grant`.
    package var rejectRefresh = false
    /// `GET /v1/presentations/{id}` of these presentations answers 204 No Content (the ASP.NET
    /// backend's answer for a null result).
    package var noContentPresentations: Set<Int> = []
    /// `GET /v1/contentpackages/{id}` of these presentations answers 204 No Content.
    package var noContentPackages: Set<Int> = []
    /// `GET /v1/presentations/{id}` and `/v1/contentpackages/{id}` of these presentations answer
    /// 403 (a deck locked or deactivated between the client list and the fetch).
    package var forbiddenPresentations: Set<Int> = []
    /// The next this-many `GET /v1/clients` answer an empty list with 200; counts down.
    package var emptyClientLists = 0
    /// Presentations whose package is published again at start-up, once the first builds are
    /// done: a new package revision under the same presentation revision (`--test-republish`).
    package var republish: [Int] = []
    /// Blob requests with `Range` get the whole blob with 200 and `Accept-Ranges: none` (a store
    /// or proxy without range support; clients must fall back to whole downloads).
    package var ignoreRanges = false
    /// Blob requests wait this long before they are answered (a slow store), so a test can act
    /// while a client waits for a blob.
    package var blobDelay: Duration?
    /// The manifest route answers this file's bytes as they are, unchecked, for every package and
    /// revision (`--test-serve-manifest FILE`): a proxy replaying an old manifest or one signed by
    /// a revoked key, which the server itself never serves (it checks both before answering).
    package var serveManifest: URL?

    package init(
        dropAfterBytes: Int? = nil, dropTimes: Int? = nil, failFirst: Int = 0, failStatus: Int = 503, retryAfter: Int? = 1,
        failOn: FaultScope = .all, rejectRefresh: Bool = false, noContentPresentations: Set<Int> = [],
        noContentPackages: Set<Int> = [], forbiddenPresentations: Set<Int> = [], emptyClientLists: Int = 0,
        republish: [Int] = [], serveManifest: URL? = nil
    ) {
        self.dropAfterBytes = dropAfterBytes
        self.dropTimes = dropTimes
        self.failFirst = failFirst
        self.failStatus = failStatus
        self.retryAfter = retryAfter
        self.failOn = failOn
        self.rejectRefresh = rejectRefresh
        self.noContentPresentations = noContentPresentations
        self.noContentPackages = noContentPackages
        self.forbiddenPresentations = forbiddenPresentations
        self.emptyClientLists = emptyClientLists
        self.republish = republish
        self.serveManifest = serveManifest
    }

    /// The statuses ``failStatus`` may take.
    package static let failStatuses: Set<Int> = [429, 500, 502, 503, 504]
}

/// The requests `--test-fail-first` counts.
package enum FaultScope: String, Sendable, Hashable, CaseIterable {
    /// The `/v1/…` content routes.
    case content
    /// The blob links (`/blobs/…`).
    case blobs
    /// Both.
    case all

    func covers(_ route: FaultScope) -> Bool { self == .all || self == route }
}

/// One request that `--test-fail-first` looked at: when, which path, and whether it was failed.
package struct FaultRecord: Sendable, Hashable {
    package var path: String
    package var failed: Bool
    package var at: ContinuousClock.Instant
}

/// The faults in force (changeable while the server runs) and the counts of the requests they
/// apply to.
final class FaultCounters: Sendable {
    private let current: Mutex<TestFaults>
    private let failed = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let records = Mutex<[FaultRecord]>([])

    init(_ faults: TestFaults) {
        current = Mutex(faults)
    }

    /// The faults in force now.
    var faults: TestFaults { current.withLock { $0 } }

    /// Changes the faults in force; requests already answered are not affected.
    func update(_ change: (inout TestFaults) -> Void) {
        current.withLock { change(&$0) }
    }

    /// Whether this `GET /v1/clients` answers an empty list (one of the next ``TestFaults/emptyClientLists``).
    func takeEmptyClientList() -> Bool {
        current.withLock { faults in
            guard faults.emptyClientLists > 0 else { return false }
            faults.emptyClientLists -= 1
            return true
        }
    }

    /// The answer forced on a presentation or content-package request for `presentationId`, if any.
    func forcedAnswer(presentationId: Int, package: Bool) -> ForcedAnswer? {
        let faults = self.faults
        if faults.forbiddenPresentations.contains(presentationId) { return .forbidden }
        let noContent = package ? faults.noContentPackages : faults.noContentPresentations
        return noContent.contains(presentationId) ? .noContent : nil
    }

    /// What a faulted content request answers instead of the object.
    enum ForcedAnswer: Equatable {
        /// 204 and no body.
        case noContent
        /// 403 `{"error": …}`.
        case forbidden
    }

    /// Whether this request (to a route of `scope`) is one of the first `failFirst` of
    /// ``TestFaults/failOn``; the requests counted are recorded while failures are switched on.
    func shouldFail(path: String, scope: FaultScope) -> Bool {
        let faults = self.faults
        guard faults.failFirst > 0, faults.failOn.covers(scope) else { return false }
        let fails = failed.wrappingAdd(1, ordering: .relaxed).oldValue < faults.failFirst
        records.withLock { $0.append(FaultRecord(path: path, failed: fails, at: .now)) }
        return fails
    }

    /// The requests counted so far, in order.
    var log: [FaultRecord] { records.withLock { $0 } }

    /// After how many bytes this blob response is cut, if it is.
    func dropLimit() -> Int? {
        let faults = self.faults
        guard let limit = faults.dropAfterBytes else { return nil }
        if let times = faults.dropTimes, dropped.wrappingAdd(1, ordering: .relaxed).oldValue >= times { return nil }
        return limit
    }
}

/// Answers the first `--test-fail-first` requests of its scope with the chosen status and `Retry-After`.
struct FailFirstMiddleware: RouterMiddleware {
    typealias Context = ContentRequestContext
    let counters: FaultCounters
    let scope: FaultScope

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if counters.shouldFail(path: request.uri.path, scope: scope) {
            throw ContentAPIError.failingOnPurpose(status: counters.faults.failStatus, retryAfter: counters.faults.retryAfter)
        }
        return try await next(request, context)
    }
}

/// Thrown into the response stream to cut a blob response short; the connection closes.
struct DeliberateDrop: Error {}

/// A body writer that passes `limit` bytes on and then fails, so the server closes the connection
/// mid-body.
///
/// A write only hands its bytes to the connection's event loop, and the close that the failure
/// causes drops whatever the loop has not written yet; so before failing, the writer waits for a
/// task of its own on that loop, which runs after the last bytes were written and flushed. The
/// client then receives exactly `limit` body bytes.
struct DroppingBodyWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    var remaining: Int
    let eventLoop: any EventLoop

    mutating func write(_ buffer: ByteBuffer) async throws {
        guard buffer.readableBytes <= remaining else {
            if remaining > 0 { try await base.write(buffer.getSlice(at: buffer.readerIndex, length: remaining)!) }
            remaining = 0
            try await eventLoop.submit {}.get()
            throw DeliberateDrop()
        }
        remaining -= buffer.readableBytes
        try await base.write(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.finish(trailingHeaders)
    }
}
