import Foundation
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

@Suite("Content server: Host allow-list and links that name the server, not the request")
struct HostCheckTests {
    @Test("A foreign Host gets 421 from the token endpoint, the content routes and the blob links; no token, no file")
    func foreignHostRefused() async throws {
        try await ContentLab.servingRunning(decks: [1]) { lab, client, running, token in
            let link = try #require(URL(string: try await client.packageLink(1, token: token)))
            let blobTarget = link.path + "?" + (link.query ?? "")
            let form = "grant_type=client_credentials&client_id=\(ContentLab.serviceId)&client_secret=\(ContentLab.serviceSecret)"
            let tokenRequest = [
                "POST /connect/token HTTP/1.1", "Host: attacker.example", "Content-Type: application/x-www-form-urlencoded",
                "Content-Length: \(form.utf8.count)", "Connection: close", "", form,
            ].joined(separator: "\r\n")
            let refusedToken = try await RawHTTP.exchange(port: running.port, tokenRequest, timeout: 10, stopWhenComplete: true)
            #expect(refusedToken.status == 421)
            #expect(!refusedToken.text.contains("access_token"))
            let refusedBlob = try await RawHTTP.get(port: running.port, blobTarget, host: "attacker.example")
            #expect(refusedBlob.status == 421)
            #expect(refusedBlob.body.count < 1000)
            let refusedAPI = try await RawHTTP.get(
                port: running.port, "/v1/contentpackages/1", host: "attacker.example:\(running.port)",
                headers: ["Authorization: Bearer \(token)"])
            #expect(refusedAPI.status == 421)
            #expect(refusedAPI.text.contains("--allowed-host attacker.example"))
            #expect(try await RawHTTP.get(port: running.port, "/v1/clients", host: nil).status == 400)
            // The server's own names are accepted.
            for name in ["127.0.0.1:\(running.port)", "localhost:\(running.port)", "[::1]:\(running.port)"] {
                #expect(try await RawHTTP.get(port: running.port, blobTarget, host: name).status == 200, "\(name)")
            }
        }
    }

    @Test("Links are built from the server's own name and port, whatever Host an allowed request gives")
    func linksIgnoreTheRequestHost() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1)
        var configuration = lab.configuration()
        configuration.allowedHosts = ["kiosk.example.lan"]
        try await lab.withRunningServer(configuration) { client, running in
            let token = try await client.serviceToken()
            let reply = try await RawHTTP.get(
                port: running.port, "/v1/contentpackages/1", host: "kiosk.example.lan", headers: ["Authorization: Bearer \(token)"])
            #expect(reply.status == 200)
            let sas = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])["sas"] as? String
            #expect(sas?.hasPrefix("http://127.0.0.1:\(running.port)/blobs/packages/") == true, "\(sas ?? "")")
        }
    }

    @Test("--public-url: links start with it, its host is accepted, other names are still refused")
    func publicURL() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1)
        var configuration = lab.configuration()
        configuration.publicBaseURL = "https://content.example.lan:9443/"
        try await lab.withRunningServer(configuration) { client, running in
            let token = try await client.serviceToken()
            let sas = try await client.packageLink(1, token: token)
            #expect(sas.hasPrefix("https://content.example.lan:9443/blobs/packages/"), "\(sas)")
            #expect(
                try await RawHTTP.get(
                    port: running.port, "/v1/clients", host: "content.example.lan:9443", headers: ["Authorization: Bearer \(token)"]
                )
                .status == 200)
            #expect(try await RawHTTP.get(port: running.port, "/v1/clients", host: "other.example.lan").status == 421)
        }
    }

    @Test("Setup refuses a --public-url that is not an http(s) URL, and every-interface binding with no name for links")
    func setupErrors() throws {
        let lab = try ContentLab()
        var bad = lab.configuration()
        bad.publicBaseURL = "ftp://files.example"
        #expect(throws: ContentServerSetupError.self) { try ContentServer(configuration: bad) }
        var wildcard = lab.configuration()
        wildcard.host = "0.0.0.0"
        do {
            _ = try ContentServer(configuration: wildcard)
            Issue.record("0.0.0.0 without a name for links was accepted")
        } catch let error as ContentServerSetupError {
            #expect(error.description.contains("--public-url"))
        }
        wildcard.allowedHosts = ["*.example.lan", "kiosk.example.lan"]
        #expect(throws: Never.self) { try ContentServer(configuration: wildcard) }
    }
}
