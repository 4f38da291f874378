import ClientCardModule
import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/presentations/demo")

@Suite("Example custom module")
struct ClientCardModuleTests {
    @Test("the custom commands answer over a real socket, and a built-in one can be replaced")
    func commands() async throws {
        let host = try await TestHost.start(presentationFolders: [demo]) { runtime in
            try runtime.bridge.register(ClientCardModule(clients: [42: "ACME Pharma"]))
        }
        let viewer = try await host.connectViewer()
        #expect(
            try await viewer.request("getClientCard", data: ["clientId": 42]).data == ["clientId": 42, "name": "ACME Pharma", "notes": []])
        #expect(try await viewer.request("getClientCard", data: ["clientId": 1]).errorCode == 404)
        let saved = try await viewer.request("saveClientNote", data: ["clientId": 42, "note": "Call back in May"])
        #expect(saved.data == ["notes": ["Call back in May"]])
        let event = try #require(await viewer.nextEvent(named: "clientCardChanged"))
        #expect(event.data["notes"] == ["Call back in May"])
        #expect(
            try await viewer.request("saveClientNote", data: ["clientId": 42, "note": ""]).errorMessage == "Invalid Data: 'note' is empty")
        await viewer.close()
        await host.stop()
    }

    @Test("the demo page reaches the module through StoryCLM.SendCommand in headless Chromium")
    func fromTheBrowser() async throws {
        let host = try await TestHost.start(presentationFolders: [demo]) { runtime in
            try runtime.bridge.register(ClientCardModule(clients: [42: "ACME Pharma"]))
        }
        let browser = try await HeadlessChromium.launch()
        let page = try await browser.newPage()
        try await page.navigate(to: host.slideURL(slide: "summary.html"))
        try await page.waitFor("window.__storybridge && window.__storybridge.state.connected")
        try await page.type("#custom-command", "getClientCard")
        try await page.type("#custom-data", #"{"clientId": 42}"#)
        try await page.click("#btn-sendCommand")
        let text = try await page.waitFor(
            "(function(){var e=document.getElementById('out-sendCommand');return e.getAttribute('data-done')==='1'?e.textContent:null;})()")
        let wrapper = try JSONValue.parse(text.stringValue ?? "null")
        #expect(wrapper["status"] == "Success")
        #expect(wrapper["data"]?["name"] == "ACME Pharma")
        await page.close()
        await browser.close()
        await host.stop()
    }
}
