import Foundation
import Hummingbird
import Synchronization

/// Ways to make the server misbehave on purpose, for testing clients (the `--test-…` options).
public struct TestFaults: Sendable, Hashable {
    /// Blob responses close the connection after this many body bytes.
    public var dropAfterBytes: Int?
    /// Only the first this-many blob responses are cut short (all when `nil`).
    public var dropTimes: Int?
    /// The first this-many content and blob requests answer 503 with `Retry-After: 1`.
    public var failFirst = 0
    /// Refresh grants answer 400 `invalid_grant`.
    public var rejectRefresh = false

    public init(dropAfterBytes: Int? = nil, dropTimes: Int? = nil, failFirst: Int = 0, rejectRefresh: Bool = false) {
        self.dropAfterBytes = dropAfterBytes
        self.dropTimes = dropTimes
        self.failFirst = failFirst
        self.rejectRefresh = rejectRefresh
    }
}

/// Counts the requests the faults apply to.
final class FaultCounters: Sendable {
    let faults: TestFaults
    private let failed = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    init(_ faults: TestFaults) {
        self.faults = faults
    }

    /// Whether this request is one of the first `failFirst`.
    func shouldFail() -> Bool {
        guard faults.failFirst > 0 else { return false }
        return failed.wrappingAdd(1, ordering: .relaxed).oldValue < faults.failFirst
    }

    /// After how many bytes this blob response is cut, if it is.
    func dropLimit() -> Int? {
        guard let limit = faults.dropAfterBytes else { return nil }
        if let times = faults.dropTimes, dropped.wrappingAdd(1, ordering: .relaxed).oldValue >= times { return nil }
        return limit
    }
}

/// Answers 503 with `Retry-After: 1` to the first `--test-fail-first` requests it sees.
struct FailFirstMiddleware: RouterMiddleware {
    typealias Context = ContentRequestContext
    let counters: FaultCounters

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if counters.shouldFail() {
            throw ContentAPIError.unavailable("failing on purpose (--test-fail-first)", retryAfter: 1)
        }
        return try await next(request, context)
    }
}

/// Thrown into the response stream to cut a blob response short; the connection closes.
struct DeliberateDrop: Error {}

/// A body writer that passes `limit` bytes on and then fails, so the server closes the connection
/// mid-body.
struct DroppingBodyWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    var remaining: Int

    mutating func write(_ buffer: ByteBuffer) async throws {
        guard buffer.readableBytes <= remaining else {
            if remaining > 0 { try await base.write(buffer.getSlice(at: buffer.readerIndex, length: remaining)!) }
            remaining = 0
            throw DeliberateDrop()
        }
        remaining -= buffer.readableBytes
        try await base.write(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.finish(trailingHeaders)
    }
}
