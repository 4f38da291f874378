import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import NIOSSL
import StoryBridgeFleet

/// The HTTP server of a content server: plain HTTP/1.1, or HTTPS from ``TLSFiles`` with
/// Hummingbird's TLS support; with the fleet hub on, either with the WebSocket upgrade.
enum TLSSetup {
    /// The server builder for `files`; reads and checks the PEM files now, so a bad certificate or
    /// key is a setup error rather than a failure on the first connection.
    static func serverBuilder(
        _ files: TLSFiles?, fleetSockets: Router<FleetSocketContext>? = nil
    ) throws(ContentServerSetupError) -> HTTPServerBuilder {
        let plain: HTTPServerBuilder
        if let fleetSockets {
            // The fleet hub's kiosk sockets: frames up to 16 MiB (screenshots), a ping every 20 s.
            plain = .http1WebSocketUpgrade(
                webSocketRouter: fleetSockets,
                configuration: .init(
                    ws: WebSocketServerConfiguration(
                        maxFrameSize: FleetWire.maxKioskFrame, autoPing: .enabled(timePeriod: .seconds(20)))))
        } else {
            plain = .http1()
        }
        guard let files else { return plain }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificateChain.path)
        } catch {
            throw .tls("cannot read the certificate chain \(files.certificateChain.path): \(error)")
        }
        guard !chain.isEmpty else { throw .tls("\(files.certificateChain.path) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: files.privateKey.path, format: .pem)
        } catch {
            throw .tls("cannot read the private key \(files.privateKey.path): \(error)")
        }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        do {
            return try .tls(plain, tlsConfiguration: configuration)
        } catch {
            throw .tls("the certificate and key cannot be used together: \(error)")
        }
    }
}
