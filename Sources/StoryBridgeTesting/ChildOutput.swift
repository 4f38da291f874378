import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a child process's standard output and error until it has exited, without waiting for
/// end-of-file: a process the child starts in turn (a browser) can inherit the pipes' write ends
/// and keep them open long after the child is gone, so reading "to the end" could wait forever. Blocking: call it from a thread of its own, never a cooperative one.
///
/// A child still running after `limit` is killed (SIGKILL) and a line saying so ends its
/// standard error, so a child that hangs fails its test instead of hanging the suite.
package func readUntilExit(
    _ process: LaunchedProcess, output: Pipe, errors: Pipe, limit: Duration = .seconds(180)
) -> (output: Data, errors: Data) {
    let killAt = ContinuousClock.now + limit
    var killed = false
    let descriptors = [output.fileHandleForReading.fileDescriptor, errors.fileHandleForReading.fileDescriptor]
    var collected = [Data(), Data()]
    var open = [true, true]
    var exitedAt: ContinuousClock.Instant?
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while open.contains(true) {
        if !killed, ContinuousClock.now > killAt, process.isRunning {
            process.kill()
            killed = true
        }
        var polls = descriptors.enumerated().filter { open[$0.offset] }.map { pollfd(fd: $0.element, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&polls, nfds_t(polls.count), 50)
        if ready > 0 {
            for entry in polls where entry.revents != 0 {
                guard let index = descriptors.firstIndex(of: entry.fd) else { continue }
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 { collected[index].append(contentsOf: buffer[0..<count]) } else { open[index] = false }
            }
            continue
        }
        // Nothing to read: once the child has exited (and a moment has passed for its last
        // writes), what is left in the pipes has been read.
        if !process.isRunning {
            if let exitedAt, ContinuousClock.now - exitedAt > .milliseconds(100) { break }
            if exitedAt == nil { exitedAt = .now }
        }
    }
    process.waitUntilExit()
    if killed { collected[1].append(contentsOf: Array("\n[killed by the test harness: still running after \(limit)]\n".utf8)) }
    return (collected[0], collected[1])
}

/// ``readUntilExit(_:output:errors:limit:)`` on a thread of its own, for async callers (never
/// block a cooperative thread on a child).
package func readUntilExit(
    _ process: LaunchedProcess, output: Pipe, errors: Pipe, limit: Duration = .seconds(180)
) async -> (output: Data, errors: Data) {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(returning: readUntilExit(process, output: output, errors: errors, limit: limit))
        }
    }
}

/// Waits for `process` to exit, holding no thread (a child whose shutdown needs a server in this
/// test process must not find the pool blocked). A child still running after `limit` is killed
/// (SIGKILL); the answer says whether it exited by itself.
@discardableResult
package func waitForExit(_ process: LaunchedProcess, limit: Duration = .seconds(60)) async -> Bool {
    await process.exit(killingAfter: limit)
}

/// Reads `pipe` on a thread of its own (never a cooperative one) until what was read contains
/// `marker`, the pipe ends, or `limit` passes, and returns what was read: how a test waits for a
/// child's start-up banner ("listening on ...") without blocking the pool that the servers in the
/// test process answer on, and without waiting for an end-of-file that another child holding the
/// pipe's write end could postpone forever.
package func readUntil(_ marker: String, from pipe: Pipe, limit: Duration = .seconds(30)) async -> String {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            let giveUpAt = ContinuousClock.now + limit
            let descriptor = pipe.fileHandleForReading.fileDescriptor
            var text = ""
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !text.contains(marker), ContinuousClock.now < giveUpAt {
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 50) > 0 else { continue }
                let count = read(descriptor, &buffer, buffer.count)
                guard count > 0 else { break }
                text += String(decoding: buffer[0..<count], as: UTF8.self)
            }
            continuation.resume(returning: text)
        }
    }
}
