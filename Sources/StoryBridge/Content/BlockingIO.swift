import NIOPosix

/// Runs file-system work that may block (a read, `stat`, `fsync`, an unzip, a directory scan, a
/// synchronous GRDB transaction) on NIO's blocking thread pool, `NIOThreadPool.singleton`, so
/// that it never parks one of Swift's cooperative threads: a slide on a slow disk, or an install
/// waiting for the database's write lock, delays only itself, never the WebSocket commands.
///
/// The work runs exactly once, also when the calling task is cancelled meanwhile (an install is
/// not half-skipped by a Ctrl-C; the caller sees the cancellation afterwards, as before).
package enum BlockingIO {
    /// `work`'s result or error, once it has run on a thread of the blocking pool.
    package static func run<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
            // `.cancelled` means the pool stopped, which the process-wide singleton never does;
            // the work runs all the same, on the thread that says so.
            NIOThreadPool.singleton.submit { _ in continuation.resume(returning: Result { () throws(Failure) in try work() }) }
        }
        return try result.get()
    }
}
