import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

/// `GET /fleet/events` renders again only the kiosks the registry changed or whose device row
/// changed (docs/design/FLEET.md §6, §11): what changes still reaches an open stream.
@Suite("Fleet dashboard stream")
struct FleetEventsStreamTests {
    @Test(
        "an open stream gets a kiosk's beat, a device added and the same device revoked by another connection to hub.sqlite (as the CLI does)"
    )
    func rowsFollowChanges() async throws {
        let (lab, store, _, token) = try ContentLab.enrolling("lobby-1")
        try await lab.withFleetHub { _, running, _ in
            var browser = FleetBrowser(port: running.port)
            #expect(try await browser.login(ContentLab.adminName, ContentLab.adminPassword).status == 303)
            let session = try #require(browser.cookies["sb_fleet"])
            let (snapshot, beat, added) = (Flag(), Flag(), Flag())
            let request = "GET /fleet/events HTTP/1.1\r\nHost: 127.0.0.1:\(running.port)\r\nCookie: sb_fleet=\(session)\r\n\r\n"
            let stream = Task {
                try await RawHTTP.exchange(port: running.port, request, timeout: 60) { response in
                    let text = response.text
                    if text.contains("event: snapshot") { snapshot.set() }
                    guard let first = text.range(of: "event: rows") else { return false }
                    let rows = text[first.lowerBound...]
                    if rows.contains("\"version\":\"0.1.0\"") { beat.set() }
                    if rows.contains("late-comer") { added.set() }
                    return added.isSet && rows.contains("\"presence\":\"revoked\"")
                }
            }
            try await eventually("the snapshot") { snapshot.isSet }
            let kiosk = try await FleetTestKiosk.connected(port: running.port, token: token.text)
            kiosk.beat(1)
            try await eventually("the beat's row") { beat.isSet }
            _ = try store.add(name: "late-comer")
            try await eventually("the added device's row") { added.isSet }
            _ = try store.revoke("late-comer")
            let response = try await stream.value
            #expect(response.text.contains("\"presence\":\"revoked\""), "\(response.text.suffix(400))")
            kiosk.disconnect()
        }
    }
}
