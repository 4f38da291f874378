import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

/// The webhooks' configuration (docs/design/FLEET.md §8.1): the config file's `webhooks` and
/// `fleet.queueAlert`, and `--webhook`; each mistake refused with an error naming it.
@Suite("Webhooks: configuration")
struct WebhookConfigurationTests {
    static let secret = "sixteen bytes at least, here"

    private func parse(_ json: String) throws(WebhookConfigurationError) -> WebhookConfiguration? {
        try WebhookConfiguration.parse(Data(json.utf8), file: "hub.json")
    }

    private func refusal(_ json: String) -> String {
        do {
            _ = try parse(json)
            return "accepted"
        } catch {
            return error.description
        }
    }

    @Test("a file's webhooks: URL, secret or secret file, events (all when absent), queue limits; http off loopback warns")
    func accepted() throws {
        let lab = try ContentLab()
        let secretFile = lab.folder.appendingPathComponent("hook-secret")
        try Data((Self.secret + "\n").utf8).write(to: secretFile)
        let configuration = try #require(
            try parse(
                """
                {"clients": [], "fleet": {"queueAlert": {"records": 100, "oldestAge": "2h"}},
                 "webhooks": [{"url": "https://alerts.site.lan/hook", "secretFile": "\(secretFile.path)"},
                              {"url": "http://alerts.site.lan/hook", "secret": "\(Self.secret)", "events": ["Kiosk (Offline)", "Presentation (Delete)"]}]}
                """))
        #expect(configuration.endpoints.count == 2)
        #expect(configuration.endpoints[0].secret == Array(Self.secret.utf8), "the trailing newline is not part of the secret")
        #expect(configuration.endpoints[0].events == Set(WebhookEvent.allCases))
        #expect(configuration.endpoints[1].events == [.kioskOffline, .presentationDelete])
        #expect(configuration.queueAlert == .init(records: 100, oldestAgeSeconds: 7200))
        #expect(configuration.warnings.count == 1 && configuration.warnings[0].contains("webhooks[1]"), "\(configuration.warnings)")
        #expect(try parse(#"{"clients": []}"#) == nil)
    }

    @Test("refused with the webhook and the reason: unknown event, no secret, both secrets, short secret, unreadable file, bad URL")
    func refused() {
        let cases: [(String, String)] = [
            (
                #"{"url": "https://a.lan/h", "secret": "\#(Self.secret)", "events": ["Kiosk (Asleep)"]}"#,
                #"the event "Kiosk (Asleep)" is unknown"#
            ),
            (#"{"url": "https://a.lan/h"}"#, "has no secret: give secretFile"),
            (#"{"url": "https://a.lan/h", "secret": "\#(Self.secret)", "secretFile": "/x"}"#, "has both secretFile and secret"),
            (#"{"url": "https://a.lan/h", "secret": "short"}"#, "the secret has 5 bytes; at least 16"),
            (
                #"{"url": "https://a.lan/h", "secretFile": "/nonexistent/hook-secret"}"#,
                "the secretFile /nonexistent/hook-secret cannot be read"
            ),
            (#"{"url": "ftp://a.lan/h", "secret": "\#(Self.secret)"}"#, #"the url "ftp://a.lan/h" is not an http:// or https:// URL"#),
            (#"{"url": "https://user:pw@a.lan/h", "secret": "\#(Self.secret)"}"#, "carries a user name or password"),
            (#"{"url": "https://a.lan/h", "secret": "\#(Self.secret)", "events": []}"#, "events is empty"),
            (#"{"url": "https://a.lan/h", "secret": "\#(Self.secret)", "event": ["Kiosk (Offline)"]}"#, #"unknown member "event""#),
        ]
        for (hook, expected) in cases {
            let message = refusal(#"{"clients": [], "webhooks": [{"url": "https://ok.lan/h", "secret": "\#(Self.secret)"}, \#(hook)]}"#)
            #expect(message.hasPrefix("hub.json: webhooks[1]: ") && message.contains(expected), "\(message)")
        }
        #expect(refusal(#"{"clients": [], "fleet": {"queueAlert": {"oldestAge": "soon"}}}"#).contains("fleet.queueAlert.oldestAge"))
    }

    @Test("content-server: --help lists --webhook; a bad webhook in --config or a --webhook without its secret is a usage error naming it")
    func commandLine() async throws {
        let lab = try ContentLab()
        let (status, help) = try await runStorybridgeToExit(["content-server", "--help"])
        #expect(status == 0 && help.contains("--webhook <URL>") && help.contains("--webhook-secret-file"), "\(help)")
        let config = lab.folder.appendingPathComponent("hub.json")
        try Data(
            """
            {"clients": [{"id": 1, "name": "A", "presentations": []}],
             "services": [{"clientId": "s", "clientSecret": "t"}],
             "webhooks": [{"url": "http://127.0.0.1:9/hook", "secret": "\(Self.secret)", "events": ["Presentation (Created)"]}]}
            """.utf8
        ).write(to: config)
        let (refused, message) = try await runStorybridgeToExit([
            "content-server", "--port", "0", "--data-dir", lab.directory.root.path, "--config", config.path,
        ])
        #expect(refused == 64, "\(message)")
        #expect(message.contains("webhooks[0]") && message.contains("\"Presentation (Created)\" is unknown"), "\(message)")
        let (alone, aloneMessage) = try await runStorybridgeToExit([
            "content-server", "--port", "0", "--data-dir", lab.directory.root.path, "--client-id", "s", "--client-secret", "t",
            "--webhook", "http://127.0.0.1:9/hook",
        ])
        #expect(alone == 64 && aloneMessage.contains("--webhook needs --webhook-secret-file"), "\(aloneMessage)")
    }
}
