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
public final class RefusingPort: Sendable {
    /// The port, held until ``close()``.
    public let port: Int
    private let descriptor: Int32
    private let closed = Atomic(false)

    /// Binds a socket to a free port on 127.0.0.1 and keeps it.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            Glibc.close(descriptor)
            throw Failure("cannot bind a port on 127.0.0.1: errno \(code)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Lets the port go (once; later calls do nothing).
    public func close() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        Glibc.close(descriptor)
    }

    deinit {
        close()
    }

    /// Why no port could be held.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }
}
