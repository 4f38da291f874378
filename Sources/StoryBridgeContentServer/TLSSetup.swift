import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOSSL

/// The HTTP server of a content server: plain HTTP/1.1, or HTTPS from ``TLSFiles`` with
/// Hummingbird's TLS support.
enum TLSSetup {
    /// The server builder for `files`; reads and checks the PEM files now, so a bad certificate or
    /// key is a setup error rather than a failure on the first connection.
    static func serverBuilder(_ files: TLSFiles?) throws(ContentServerSetupError) -> HTTPServerBuilder {
        guard let files else { return .http1() }
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
            return try .tls(.http1(), tlsConfiguration: configuration)
        } catch {
            throw .tls("the certificate and key cannot be used together: \(error)")
        }
    }
}
