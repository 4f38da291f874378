import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The plain-socket plumbing the test servers on 127.0.0.1 share (``DroppingBlobServer``,
/// ``RangePolicyBlobServer``, ``RewritingFront``): a listening socket on a port the kernel picks,
/// accepting on a thread of its own, reading a request head and writing a reply whole.
struct LoopbackListener: Sendable {
    let descriptor: Int32
    let port: Int

    /// Listens on 127.0.0.1 with `backlog` (and `SO_REUSEADDR` when `reuseAddress`).
    init(backlog: Int32 = 16, reuseAddress: Bool = false) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if reuseAddress {
            var yes: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, backlog) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw LabFailure("cannot listen on 127.0.0.1")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Calls `handle` with each accepted connection, on a thread of its own, until ``stop()``;
    /// `handle` owns the connection (closes it).
    func acceptOnThread(_ handle: @escaping @Sendable (Int32) -> Void) {
        Thread {
            while true {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { return }
                handle(connection)
            }
        }.start()
    }

    /// Stops accepting connections.
    func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }

    /// A request's head, read up to its blank line; nil when the connection ends first.
    static func readHead(_ connection: Int32) -> String? {
        var bytes = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !bytes.contains(Data("\r\n\r\n".utf8)) {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return nil }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `data` whole, telling `wrote` each count the kernel accepted; false when the peer
    /// is gone first.
    @discardableResult
    static func writeAll(_ connection: Int32, _ data: Data, wrote: (Int) -> Void = { _ in }) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = send(connection, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                guard written > 0 else { return false }
                offset += written
                wrote(written)
            }
            return true
        }
    }
}
