import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import StoryBridgeTesting
import Testing

@testable import StoryBridgeSync

@Suite("Downloads: blobs over https")
struct BlobTLSTests {
    /// Runs a command to its end; returns its status.
    func run(_ command: String) async throws -> Int32 {
        let output = Pipe()
        let errors = Pipe()
        let process = try await LaunchedProcess.launch(
            URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", command], output: .pipe(output), error: .pipe(errors))
        _ = await readUntilExit(process, output: output, errors: errors)
        return process.terminationStatus
    }

    @Test(
        "TLS with the host name checked against the certificate; the body of a reply without a length is read to its end",
        .timeLimit(.minutes(1)))
    func httpsBlob() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = SeededBytes(seed: 7)
        let blob = generator.bytes(300_000)
        try blob.write(to: folder.appendingPathComponent("blob.bin"))
        let made = try await run(
            "cd '\(folder.path)' && openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 "
                + "-subj /CN=localhost -addext subjectAltName=DNS:localhost")
        try #require(made == 0, "openssl could not make a certificate")
        let output = Pipe()
        let server = try await LaunchedProcess.launch(
            URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "cd '\(folder.path)' && exec openssl s_server -accept 127.0.0.1:0 -cert cert.pem -key key.pem -WWW"],
            output: .pipe(output), error: .pipe(Pipe()))
        defer { server.terminate() }
        let text = await readUntil("ACCEPT", from: output, limit: .seconds(20))
        let port = try #require(text.firstMatch(of: /ACCEPT 127\.0\.0\.1:(\d+)/).flatMap { Int($0.1) })

        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(folder.appendingPathComponent("cert.pem").path))
        let trusting = try NIOSSLContext(configuration: configuration)
        // "localhost" is the name in the certificate; "127.0.0.1" is not, and is refused.
        let target = try #require(BlobHTTP.Target("https://localhost:\(port)/blob.bin"))
        var received = Data()
        var status = 0
        var ended = false
        try await BlobHTTP.get(target, headers: HTTPHeaders(), connectTimeout: .seconds(5), readTimeout: .seconds(10), trusting: trusting) {
            parts in
            while let part = try await parts.next() {
                switch part {
                case .head(let head): status = Int(head.status.code)
                case .body(let chunk): received.append(contentsOf: chunk.readableBytesView)
                case .end: ended = true
                }
            }
        }
        #expect(status == 200)
        #expect(ended)
        // Compared outside #expect: a failed expectation on two large Data values is diffed for hours.
        let same = received == blob
        #expect(same, "received \(received.count) bytes: \(String(decoding: received.prefix(200), as: UTF8.self))")
        let wrongName = try #require(BlobHTTP.Target("https://127.0.0.1:\(port)/blob.bin"))
        await #expect(throws: (any Error).self) {
            try await BlobHTTP.get(
                wrongName, headers: HTTPHeaders(), connectTimeout: .seconds(5), readTimeout: .seconds(10), trusting: trusting
            ) { parts in
                while try await parts.next() != nil {}
            }
        }
    }
}
