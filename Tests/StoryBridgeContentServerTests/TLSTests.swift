import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOSSL
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

@Suite("Content server: HTTPS with --tls-cert/--tls-key")
struct TLSTests {
    /// A self-signed certificate for 127.0.0.1 and localhost, made with the openssl command.
    static func selfSignedCertificate(in folder: URL) async throws -> TLSFiles {
        let files = TLSFiles(
            certificateChain: folder.appendingPathComponent("cert.pem"), privateKey: folder.appendingPathComponent("key.pem"))
        let process = try await LaunchedProcess.launch(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            arguments: [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", files.privateKey.path, "-out",
                files.certificateChain.path,
            ], input: .discard, output: .discard, error: .discard)
        await process.exit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        return files
    }

    @Test("Over https://127.0.0.1 with the certificate trusted: a token, an https sas link, and the package whose SHA-256 is its ETag")
    func fetchOverHTTPS() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1, mediaBytes: 200_000)
        var configuration = lab.configuration()
        let files = try await Self.selfSignedCertificate(in: lab.folder)
        configuration.tls = files
        try await lab.withRunningServer(configuration) { _, running in
            #expect(running.baseURL.hasPrefix("https://127.0.0.1:"))
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(files.certificateChain.path))
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
            do {
                func fetch(_ url: String, token: String? = nil, form: String? = nil) async throws -> (Int, [String: String], Data) {
                    var request = HTTPClientRequest(url: url)
                    if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
                    if let form {
                        request.method = .POST
                        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                        request.body = .bytes(ByteBuffer(string: form))
                    }
                    let response = try await http.execute(request, timeout: .seconds(30))
                    let body = try await response.body.collect(upTo: 10 << 20)
                    var headers: [String: String] = [:]
                    for header in response.headers { headers[header.name.lowercased()] = header.value }
                    return (Int(response.status.code), headers, Data(buffer: body))
                }
                let (status, _, tokenBody) = try await fetch(
                    running.baseURL + "/connect/token",
                    form: "grant_type=client_credentials&client_id=\(ContentLab.serviceId)&client_secret=\(ContentLab.serviceSecret)")
                #expect(status == 200)
                let token = try #require((try JSONSerialization.jsonObject(with: tokenBody) as? [String: Any])?["access_token"] as? String)
                #expect(try jwtClaims(token)["iss"] as? String == running.baseURL)
                let (_, _, packageBody) = try await fetch(running.baseURL + "/v1/contentpackages/1", token: token)
                let package = try #require(try JSONSerialization.jsonObject(with: packageBody) as? [String: Any])
                let sas = try #require(package["sas"] as? String)
                #expect(sas.hasPrefix("https://127.0.0.1:\(running.port)/blobs/packages/"), "\(sas)")
                let (zipStatus, headers, zip) = try await fetch(sas)
                #expect(zipStatus == 200)
                #expect(zip.count == package["fileSize"] as? Int)
                let digest = SHA256.hash(data: zip).map { String(format: "%02x", $0) }.joined()
                #expect(headers["etag"] == "\"\(digest)\"")
                #expect(zip == (try cachedPackage(lab, id: 1, revision: 1)))
            } catch {
                try await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }

    @Test("A certificate or key that cannot be read is a setup error naming the file")
    func badFiles() throws {
        let lab = try ContentLab()
        var configuration = lab.configuration()
        let bogus = lab.folder.appendingPathComponent("not-a-cert.pem")
        try Data("hello".utf8).write(to: bogus)
        configuration.tls = TLSFiles(certificateChain: bogus, privateKey: bogus)
        do {
            _ = try ContentServer(configuration: configuration)
            Issue.record("a bogus certificate was accepted")
        } catch let error as ContentServerSetupError {
            #expect(error.description.contains("not-a-cert.pem"))
        }
    }
}
