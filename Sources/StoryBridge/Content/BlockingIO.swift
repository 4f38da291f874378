import Foundation
import NIOPosix

/// Runs file-system work that may block (a read, `stat`, `fsync`, an unzip, a directory scan, a
/// synchronous GRDB transaction) on a thread pool of its own, so that it never parks one of
/// Swift's cooperative threads: a slide on a slow disk, or an install waiting for the database's
/// write lock, delays only itself, never the WebSocket commands.
///
/// The pool is NIO's `NIOThreadPool`, started once for the process and never stopped, with
/// ``threadCount`` threads: more than the cores, since its threads wait on the disk rather than
/// use the CPU, and apart from `NIOThreadPool.singleton` (Hummingbird's `FileIO`), so files that
/// hang here do not also stop the asset bodies served from there.
///
/// The work runs exactly once, also when the calling task is cancelled meanwhile (an install is
/// not half-skipped by a Ctrl-C; the caller sees the cancellation afterwards, as before).
package enum BlockingIO {
    /// The pool's size: twice the cores, at least 8.
    package static let threadCount = max(8, 2 * ProcessInfo.processInfo.activeProcessorCount)

    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: threadCount)
        pool.start()
        return pool
    }()

    /// `work`'s result or error, once it has run on a thread of the pool.
    package static func run<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
            // `.cancelled` means the pool stopped, which this one never does; the work runs all
            // the same, on the thread that says so.
            pool.submit { _ in continuation.resume(returning: Result { () throws(Failure) in try work() }) }
        }
        return try result.get()
    }
}
