import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// A second presentation to open from the demo.
func secondPresentationFolder() throws -> URL {
    func slide(_ links: String, next: String = "", previous: String = "") -> String {
        """
        <html><head><meta name="clm-swipe-next" content="\(next)"><meta name="clm-swipe-previous" content="\(previous)">
        <meta name="clm" content="\(links)"><title>x</title></head><body></body></html>
        """
    }
    return try makePresentationFolder([
        "index.html": slide("intro.html", next: "intro.html"),
        "intro.html": slide("index.html", previous: "index.html"),
    ])
}

/// Runs `body` with a host of two presentations: the demo (1) and a second one (2).
func withTwo(_ body: (TestHost) async throws -> Void) async throws {
    let host = try await TestHost.start(
        presentationFolders: [demoFolder, try secondPresentationFolder()],
        catalogs: [.init(id: 1, name: "Demo"), .init(id: 2, name: "Second")])
    try await host.use { try await body($0) }
}

@Suite("Presentation, map, UI and media commands over a real WebSocket")
struct PresentationCommandTests {
    @Test("getPresentationInfo answers the catalog facts with both spellings of shortDescription")
    func info() async throws {
        try await withTwo { host in
            let viewer = try await host.connectViewer()
            let info = try await viewer.request("getPresentationInfo").data
            #expect(info["presentationId"] == 1)
            #expect(info["name"] == "Demo")
            #expect(info["slidesCount"] == 5)
            #expect(info["mediaFilesCount"] == 2)
            #expect(info["shortdescription"] == info["shortDescription"])
            for key in ["longDescription", "revision", "status", "order"] { #expect(info[key] != nil) }
            await viewer.close()
        }
    }

    @Test("current, next and previous slides follow the meta tags and history; 404 at the ends")
    func neighbours() async throws {
        try await withTwo { host in
            let viewer = try await host.connectViewer(slide: "index.html")
            #expect(try await viewer.request("getCurrentSlideName").data == ["slide": "index.html"])
            #expect(try await viewer.request("getNextSlide").data == ["slide": "products.html"])
            let noPrevious = try await viewer.request("getPreviousSlide")
            #expect(noPrevious.errorCode == 404)
            #expect(noPrevious.errorMessage == "No previous slide")
            await viewer.close()

            let last = try await host.connectViewer(slide: "summary.html", viewerId: viewer.viewerId)
            #expect(try await last.request("getPreviousSlide").data == ["slide": "details.html"])
            let noNext = try await last.request("getNextSlide")
            #expect(noNext.errorCode == 404)
            #expect(noNext.errorMessage == "No next slide")
            #expect(try await last.request("getBackForwardList").data == ["index.html", "summary.html"])
            await last.close()
        }
    }

    @Test("getPresentations lists the library; open switches presentation; getBackForwardPresList lists both")
    func openAnother() async throws {
        try await withTwo { host in
            let viewer = try await host.connectViewer()
            #expect(
                try await viewer.request("getPresentations").data
                    == [["name": "Demo", "presId": 1], ["name": "Second", "presId": 2]])
            let opened = try await viewer.request("open", data: ["presId": 2, "slideName": "", "data": ["x": 1]])
            #expect(opened.data == [:])
            let navigate = try #require(await viewer.nextEvent(named: "navigate"))
            #expect(navigate.data["url"] == "/p/2/index.html")
            await viewer.close()

            let there = try await host.connectViewer(presentationId: 2, slide: "index.html", viewerId: viewer.viewerId)
            #expect(try await there.request("getNavigationData").data == ["x": 1])
            #expect(try await there.request("getPresentationInfo").data["name"] == "Second")
            #expect(try await there.request("getBackForwardList").data == ["index.html"])
            #expect(
                try await there.request("getBackForwardPresList").data
                    == [["name": "Demo", "presId": 1], ["name": "Second", "presId": 2]])
            await there.close()
        }
    }

    @Test("open of an unknown presentation or slide is a 404; a bad presId a 400")
    func openErrors() async throws {
        try await withTwo { host in
            let viewer = try await host.connectViewer()
            let unknown = try await viewer.request("open", data: ["presId": 99, "slideName": ""])
            #expect(unknown.errorCode == 404)
            #expect(unknown.errorMessage == "Presentation 99 is not installed on this host: get it with `storybridge sync --content 99`")
            #expect(try await viewer.request("open", data: ["presId": 2, "slideName": "nope.html"]).errorCode == 404)
            let bad = try await viewer.request("open", data: ["presId": "two"])
            #expect(bad.errorCode == 400)
            #expect(bad.errorMessage.contains("'presId'"))
            await viewer.close()
        }
    }

    @Test("getMap answers the tree of linked slides")
    func map() async throws {
        try await withTwo { host in
            let viewer = try await host.connectViewer()
            let map = try await viewer.request("getMap").data
            #expect(map["index.html"] == ["products.html", "legacy.html"])
            #expect(map["details.html"] == ["summary.html"])
            await viewer.close()
        }
    }

    @Test("UI, map and media button commands change the chrome and tell the page")
    func chrome() async throws {
        try await withTwo { host in
            let viewer = try await host.connectViewer()
            for (command, key, shown) in [
                ("hideMapBtn", "mapButton", false), ("showMapBtn", "mapButton", true),
                ("hideMediaLibraryBtn", "mediaLibraryButton", false), ("showMediaLibraryBtn", "mediaLibraryButton", true),
                ("hideCloseBtn", "closeButton", false),
            ] {
                #expect(try await viewer.request(command).data == [:])
                let event = try #require(await viewer.nextEvent(named: "chrome"))
                #expect(event.data[key] == .bool(shown), "\(command)")
            }
            _ = try await viewer.request("hideSystemBtns")
            let all = try #require(await viewer.nextEvent(named: "chrome"))
            #expect(all.data["systemButtons"] == false)
            // The chrome state survives the next page load.
            await viewer.close()
            let next = try await host.connectViewer(slide: "products.html", viewerId: viewer.viewerId)
            let hello = try #require(await next.nextEvent(named: "hello"))
            #expect(hello.data["chrome"]?["closeButton"] == false)
            await next.close()
        }
    }

    @Test("getMediaFiles lists titles and names; openMediaFile answers only when the viewer closes it")
    func media() async throws {
        try await withTwo { host in
            let viewer = try await host.connectViewer()
            #expect(
                try await viewer.request("getMediaFiles").data
                    == [["title": "brochure", "fileName": "brochure.pdf"], ["title": "chime", "fileName": "chime.wav"]])
            let guid = viewer.makeGUID()
            viewer.send(BridgeRequest(command: "openMediaFile", data: ["id": -1, "name": "chime.wav"], guid: guid))
            let open = try #require(await viewer.nextEvent(named: "openMedia"))
            #expect(open.data["kind"] == "audio")
            #expect(open.data["url"] == "/p/1/mediafiles/chime.wav")
            // While the file is open the page's other requests are answered...
            #expect(try await viewer.request("getUserInfo").status == .success)
            // ...and the open request is not.
            #expect(await viewer.answer(to: guid, timeout: .milliseconds(300)) == nil)
            let prompt = try #require(open.data["prompt"]?.stringValue)
            _ = try await viewer.request("storybridge.promptAnswer", data: ["prompt": .string(prompt), "value": "close"])
            let closed = try #require(await viewer.answer(to: guid))
            #expect(closed.data == ["name": "chime.wav", "status": "close"])
            #expect(viewer.answerCount(for: guid) == 1)
            await viewer.close()
        }
    }

    @Test("openMediaFile of a missing file is a 404; openMediaLibrary answers when the library closes")
    func mediaErrorsAndLibrary() async throws {
        try await withTwo { host in
            let viewer = try await host.connectViewer()
            let missing = try await viewer.request("openMediaFile", data: ["id": -1, "name": "nope.pdf"])
            #expect(missing.errorCode == 404)
            #expect(missing.errorMessage.hasPrefix("File not found"))
            let guid = viewer.makeGUID()
            viewer.send(BridgeRequest(command: "openMediaLibrary ", data: [:], guid: guid))
            let library = try #require(await viewer.nextEvent(named: "openMediaLibrary"))
            #expect(library.data["files"]?.arrayValue?.count == 2)
            let prompt = try #require(library.data["prompt"]?.stringValue)
            viewer.send(BridgeRequest(command: "storybridge.promptAnswer", data: ["prompt": .string(prompt), "value": "close"]))
            #expect(await viewer.answer(to: guid)?.data == ["status": "close"])
            await viewer.close()
        }
    }

    @Test("closePresentation 1 and 2 close at once; 0 asks the viewer of a needConfirmation deck and cancel keeps it open")
    func close() async throws {
        try await withTwo { host in
            // The content service's flag that makes a mode-0 close ask (PlatformFlagsTests has the rest).
            var demo = try #require(host.runtime.library.presentation(id: 1))
            demo.flags.needsConfirmation = true
            host.runtime.library.add(demo)
            let viewer = try await host.connectViewer()
            viewer.send(BridgeRequest(command: "closePresentation", data: ["mode": 2]))
            let closed = try #require(await viewer.nextEvent(named: "closed"))
            #expect(closed.data["outcome"] == "discarded")
            #expect(closed.data["url"]?.stringValue?.hasPrefix("/__storybridge/closed") == true)
            await viewer.close()

            let again = try await host.connectViewer(viewerId: viewer.viewerId)
            let guid = again.makeGUID()
            again.send(BridgeRequest(command: "closePresentation", data: ["mode": "weird"], guid: guid))
            let ask = try #require(await again.nextEvent(named: "confirmClose"))
            let prompt = try #require(ask.data["prompt"]?.stringValue)
            again.send(BridgeRequest(command: "storybridge.promptAnswer", data: ["prompt": .string(prompt), "value": "cancel"]))
            #expect(await again.answer(to: guid)?.data == ["outcome": "cancelled"])
            #expect(try await again.request("getCurrentSlideName").data == ["slide": "index.html"])

            let saveGuid = again.makeGUID()
            again.send(BridgeRequest(command: "closePresentation", data: ["mode": 0], guid: saveGuid))
            let ask2 = try #require(await again.nextEvent(named: "confirmClose"))
            again.send(
                BridgeRequest(
                    command: "storybridge.promptAnswer", data: ["prompt": ask2.data["prompt"]!, "value": "save"]))
            #expect(await again.answer(to: saveGuid)?.data == ["outcome": "saved"])
            #expect(try #require(await again.nextEvent(named: "closed")).data["outcome"] == "saved")
            await again.close()
        }
    }

    @Test("the closed page and the library page are served by the host")
    func hostPages() async throws {
        try await withTwo { host in
            let closed = try await httpGet(host.baseURL + "/__storybridge/closed?presentation=1&outcome=saved")
            #expect(closed.status == 200)
            let html = String(decoding: closed.body, as: UTF8.self)
            #expect(html.contains("The session was saved"))
            #expect(html.contains("/p/1/index.html"))
            let library = String(decoding: try await httpGet(host.baseURL + "/").body, as: UTF8.self)
            #expect(library.contains("Second"))
            #expect(library.contains("/p/2/index.html"))
        }
    }
}
