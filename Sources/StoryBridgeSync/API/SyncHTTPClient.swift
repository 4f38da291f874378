import AsyncHTTPClient
import NIOCore

/// The HTTP client of the content API and the token endpoint: bounded connect and read timeouts,
/// redirects followed. Blobs are fetched by ``BlobHTTP`` instead, which keeps every byte of a
/// dropped response.
package enum SyncHTTPClient {
    package static func make(connectTimeout: TimeAmount = .seconds(10), readTimeout: TimeAmount = .seconds(30)) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: connectTimeout, read: readTimeout)
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
