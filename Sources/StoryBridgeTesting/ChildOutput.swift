import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a child process's standard output and error until it has exited, without waiting for
/// end-of-file: another child started at the same moment (a browser, a server) can inherit the
/// pipes' write ends and keep them open long after this child is gone, so reading "to the end"
/// could wait forever. Blocking: call it from a thread of its own, never a cooperative one.
public func readUntilExit(_ process: Process, output: Pipe, errors: Pipe) -> (output: Data, errors: Data) {
    let descriptors = [output.fileHandleForReading.fileDescriptor, errors.fileHandleForReading.fileDescriptor]
    var collected = [Data(), Data()]
    var open = [true, true]
    var exitedAt: ContinuousClock.Instant?
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while open.contains(true) {
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
    return (collected[0], collected[1])
}
