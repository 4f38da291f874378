import Foundation
import StoryBridgeTesting
import Testing

@testable import StoryBridge

@Suite("Base module")
struct BaseModuleTests {
    let identity = HostIdentity.testRig(
        userId: "u-42", username: "Anna", device: "QA rig", appVersion: "9.9",
        at: (55.75, 37.62, "Moscow"))

    func ask(_ command: String, _ data: JSONValue = [:], slide: String = "index.html") async throws
        -> (BridgeResponse, Viewer)
    {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation, slide: slide, identity: identity)
        let response = try #require(
            await host.bridge.handle(BridgeRequest(command: command, data: data, guid: "G"), context: host.context(for: viewer)))
        return (response, viewer)
    }

    @Test("getUserInfo, getAppInfo and getGeoLocationInfo answer the configured identity")
    func identityAnswers() async throws {
        #expect(try await ask("getUserInfo").0.data == ["id": "u-42", "username": "Anna"])
        #expect(
            try await ask("getAppInfo").0.data
                == ["localization": "ru", "osVersion": "6.1", "os": "Linux", "device": "QA rig", "appVersion": "9.9"])
        #expect(
            try await ask("getGeoLocationInfo").0.data
                == ["latitude": 55.75, "longitude": 37.62, "longtitude": 37.62, "address": "Moscow"])
    }

    @Test("go to an existing slide answers {} and asks the page to navigate there with the data")
    func goNavigates() async throws {
        let (response, viewer) = try await ask("go", ["slideName": "b.html", "data": ["n": 1]])
        #expect(response == .success(guid: "G", data: [:]))
        let pending = try #require(await viewer.state.pendingNavigation)
        #expect(pending.slide == "b.html")
        #expect(pending.data == ["n": 1])
        #expect(pending.cause == .go)
    }

    @Test("go to a missing slide is a 404 naming it")
    func goMissing() async throws {
        let (response, _) = try await ask("go", ["slideName": "nowhere.html"])
        #expect(response.errorCode == 404)
        #expect(response.errorMessage == "Slide 'nowhere.html' not found in presentation 1")
    }

    @Test("go without a usable slideName is a 400 naming the field")
    func goBadData() async throws {
        #expect(try await ask("go", [:]).0.errorMessage == "Invalid Data: 'slideName' is missing")
        #expect(try await ask("go", ["slideName": 3]).0.errorMessage == "Invalid Data: 'slideName' must be a string, got a number")
    }

    @Test("navigation data reaches the slide that go led to, and only that load")
    func navigationDataHandOver() async throws {
        let presentation = try TemporaryPresentation.threeSlides().load()
        let (host, viewer) = await makeHost(presentation: presentation)
        let context = host.context(for: viewer)
        _ = await host.bridge.handle(
            BridgeRequest(command: "go", data: ["slideName": "a.html", "data": ["from": "index"]], guid: "1"), context: context)
        let entry = await viewer.enterSlide(presentationId: 1, slide: "a.html", pageLoad: "load-2")
        #expect(entry.cause == .go)
        let there = await host.bridge.handle(BridgeRequest(command: "getNavigationData", guid: "2"), context: context)
        #expect(there?.data == ["from": "index"])
        // A reconnect of the same page load keeps it; a plain link to another slide clears it.
        await viewer.enterSlide(presentationId: 1, slide: "a.html", pageLoad: "load-2")
        #expect(await viewer.state.navigationData == ["from": "index"])
        await viewer.enterSlide(presentationId: 1, slide: "b.html", pageLoad: "load-3")
        let after = await host.bridge.handle(BridgeRequest(command: "getNavigationData", guid: "3"), context: context)
        #expect(after?.data == [:])
        #expect(await viewer.state.history == ["index.html", "a.html", "b.html"])
    }
}
