import AsyncHTTPClient
import NIOCore

/// The HTTP client sync uses: bounded connect and read timeouts (a stalled download is noticed
/// and resumed), no overall deadline (a large package may take long), redirects followed.
public enum SyncHTTPClient {
    public static func make(connectTimeout: TimeAmount = .seconds(10), readTimeout: TimeAmount = .seconds(30)) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: connectTimeout, read: readTimeout)
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
