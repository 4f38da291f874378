import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// Plain words for a transport failure, for messages an operator reads (never a platform error
/// dump).
enum NetworkFailure {
    /// What went wrong, e.g. "connection refused", "timed out".
    static func reason(_ error: any Error) -> String {
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout, .getConnectionFromPoolTimeout: return "the connection timed out"
            case .readTimeout, .deadlineExceeded: return "the server stopped answering (timed out)"
            case .remoteConnectionClosed: return "the server closed the connection"
            case .cancelled: return "the request was cancelled"
            case .invalidURL, .emptyHost, .emptyScheme: return "the address is not a valid http(s) URL"
            default: return "the HTTP exchange failed"
            }
        }
        if let connection = error as? NIOConnectionError {
            if connection.dnsAError != nil || connection.dnsAAAAError != nil { return "the host name could not be resolved" }
            if let first = connection.connectionErrors.first { return reason(first.error) }
            return "no address to connect to"
        }
        if let io = error as? IOError { return errnoReason(io.errnoCode) }
        if let stalled = error as? BlobReadStalled { return stalled.description }
        if let channel = error as? ChannelError {
            switch channel {
            case .connectTimeout: return "the connection timed out"
            case .ioOnClosedChannel, .eof, .outputClosed, .inputClosed, .alreadyClosed: return "the connection was closed"
            default: return "the connection failed"
            }
        }
        return "the connection failed"
    }

    static func errnoReason(_ code: Int32) -> String {
        switch code {
        case ECONNREFUSED: return "connection refused (is the server running?)"
        case ECONNRESET: return "the connection was reset"
        case ETIMEDOUT: return "the connection timed out"
        case EHOSTUNREACH, ENETUNREACH: return "no route to the host"
        case EPIPE: return "the connection was closed"
        default: return "the connection failed (errno \(code))"
        }
    }

    /// Whether the failure is worth retrying (the network, not the request, failed).
    static func isTransient(_ error: any Error) -> Bool {
        if let client = error as? HTTPClientError {
            return [.connectTimeout, .getConnectionFromPoolTimeout, .readTimeout, .remoteConnectionClosed, .deadlineExceeded]
                .contains(client)
        }
        return error is NIOConnectionError || error is IOError || error is ChannelError || error is BlobReadStalled
    }

    /// "host:port" of a URL, for messages.
    static func hostDescription(_ url: URL) -> String {
        let host = url.host ?? url.absoluteString
        return url.port.map { "\(host):\($0)" } ?? host
    }
}
