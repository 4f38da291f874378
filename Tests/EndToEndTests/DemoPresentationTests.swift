import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// The demo presentation in a real headless Chromium, against a real host.
@Suite("Demo presentation in headless Chromium", .serialized)
struct DemoPresentationTests {
    let identity = HostIdentity.testRig(
        userId: "e2e-user", username: "Vera", device: "headless", appVersion: "2.2.0",
        at: (59.93, 30.31, "Saint Petersburg"))

    @Test("every Base call made from the start slide is answered and shown on the page")
    func baseCalls() async throws {
        try await withBrowser(identity: identity) { host, page in
            try await page.navigate(to: host.baseURL + "/")
            try await page.waitForSlide("index.html")
            #expect(try await page.text("#transport")?.contains("storybridge") == true)

            let app = try await page.press("getAppInfo")
            #expect(app["status"] == "Success")
            #expect(app["errorCode"] == 200)
            #expect(app["data"] == ["localization": "ru", "osVersion": "6.1", "os": "Linux", "device": "headless", "appVersion": "2.2.0"])

            let user = try await page.press("getUserInfo")
            #expect(user["data"] == ["id": "e2e-user", "username": "Vera"])

            let geo = try await page.press("getGeoLocationInfo")
            #expect(geo["data"]?["address"] == "Saint Petersburg")
            #expect(geo["data"]?["latitude"] == 59.93)

            let navigation = try await page.press("getNavigationData")
            #expect(navigation["status"] == "Success")
            #expect(navigation["data"] == [:])
        }
    }

    @Test("go leads to the next slide, which reads the handed-over navigation data both ways")
    func goAndNavigationData() async throws {
        try await withBrowser { host, page in
            try await page.openSlide(on: host)
            try await page.click("#btn-go")
            try await page.waitForSlide("products.html")
            #expect(try await page.text("#slide-title") == "products.html")
            let sync = try JSONValue.parse(try await page.text("#nav-sync") ?? "null")
            #expect(sync == ["from": "index", "answer": 42])
            let navigation = try await page.press("getNavigationData")
            #expect(navigation["data"] == ["from": "index", "answer": 42])

            // A plain link is a slide change too, and carries no navigation data.
            try await page.evaluate("location.href = 'details.html'")
            try await page.waitForSlide("details.html")
            #expect(try await page.text("#nav-sync") == "{}")
            #expect(try await page.press("getNavigationData")["data"] == [:])
        }
    }

    @Test("go to a slide that does not exist answers 404 to the page, which stays put")
    func goMissingSlide() async throws {
        try await withBrowser { host, page in
            try await page.openSlide(on: host)
            try await page.type("#go-target", "nowhere.html")
            let answer = try await page.press("go-custom")
            #expect(answer["status"] == "Failure")
            #expect(answer["errorCode"] == 404)
            #expect(answer["errorMessage"]?.stringValue?.contains("nowhere.html") == true)
            #expect(try await page.evaluate("location.pathname") == "/p/1/index.html")
        }
    }

    @Test("a slide that speaks only the legacy doorbell protocol is answered through the shim")
    func legacyDoorbell() async throws {
        try await withBrowser(identity: identity) { host, page in
            try await page.openSlide(on: host)
            try await page.click("#link-legacy")
            try await page.waitForSlide("legacy.html")
            #expect(try await page.evaluate("typeof window.StoryCLM") == "undefined")

            let user = try await page.press("getUserInfo")
            #expect(user["status"] == "Success")
            #expect(user["data"] == ["id": "e2e-user", "username": "Vera"])
            let app = try await page.press("getAppInfo")
            #expect(app["data"]?["device"] == "headless")
            let navigation = try await page.press("getNavigationData")
            #expect(navigation["data"] == [:])
            // The GUID format of the original library travelled unchanged.
            let raw = try JSONValue.parse(try await page.text("#raw-getUserInfo") ?? "null")
            #expect(raw["GUID"]?.stringValue?.hasPrefix("GUID_") == true)
        }
    }

    @Test("the viewer keeps its id across slide loads and the host sees the slide history")
    func viewerAcrossLoads() async throws {
        try await withBrowser { host, page in
            try await page.openSlide(on: host)
            let firstId = try await page.evaluate("window.__storybridge.viewerId")
            try await page.click("#link-next")
            try await page.waitForSlide("products.html")
            let secondId = try await page.evaluate("window.__storybridge.viewerId")
            #expect(firstId == secondId)
            let viewerId = try #require(firstId.stringValue)
            let viewer = try #require(await host.runtime.viewers.existingViewer(id: viewerId))
            #expect(await viewer.state.history == ["index.html", "products.html"])
        }
    }
}
