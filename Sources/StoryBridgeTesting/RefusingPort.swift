import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A port on 127.0.0.1 where nothing listens and nothing can start listening while the value is
/// held: a TCP socket bound to it without `listen`, so a connection to it is refused at once.
///
/// Tests of "the collector cannot be reached" need such an address. Taking a free port and closing
/// it is not enough when tests run in parallel: another test's server can be given the same port
/// a moment later, and the refused connection becomes an answer from the wrong server.
package final class RefusingPort: Sendable {
    /// The port, held until ``close()``.
    package let port: Int
    private let descriptor: Int32
    private let closed = Atomic(false)

    /// Binds a socket to a free port on 127.0.0.1 and keeps it; throws
    /// ``RawHTTP/Failure/socket(errno:)`` when no socket can be made or bound.
    package init() throws {
        let descriptor = try RawHTTP.tcpSocket()
        var address = RawHTTP.loopbackAddress(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            Glibc.close(descriptor)
            throw RawHTTP.Failure.socket(errno: code)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Lets the port go (once; later calls do nothing).
    package func close() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        Glibc.close(descriptor)
    }

    deinit {
        close()
    }
}
