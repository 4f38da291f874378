import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// One request as a generation of storyclm.js puts it in its queue: `Command`, `Data` and, when
/// the library passes a callback to `StoryCLMBridge.Invoke`, a GUID in its format.
private struct Sent {
    let command: String
    let data: JSONValue
    let answered: Bool

    init(_ command: String, _ data: JSONValue = .emptyObject, answered: Bool = true) {
        self.command = command
        self.data = data
        self.answered = answered
    }
}

/// Sends `requests` in one frame, an array, as the client sends a drained doorbell queue, with
/// GUIDs of the libraries' form (`GUID_<n><32 hex>`), and returns each answer (by command, in the
/// order sent) of those that carry a GUID.
private func drain(_ viewer: ViewerClient, _ requests: [Sent]) async throws -> [(command: String, answer: BridgeResponse)] {
    var queue: [JSONValue] = []
    var guids: [(String, String)] = []
    for request in requests {
        var message: [String: JSONValue] = ["Command": .string(request.command), "Data": request.data]
        if request.answered {
            let guid = viewer.makeGUID()
            message["GUID"] = .string(guid)
            guids.append((request.command, guid))
        }
        queue.append(.object(message))
    }
    viewer.sendRaw(JSONValue.array(queue).jsonString())
    var answers: [(command: String, answer: BridgeResponse)] = []
    for (command, guid) in guids {
        let answer = try #require(await viewer.answer(to: guid), "no answer to \(command)")
        answers.append((command, answer))
    }
    return answers
}

/// Every generation of storyclm.js in the vendor's public repositories, spoken on the wire as
/// each one sends it (command names and `Data` as its functions build them; written here from
/// the table in docs/PROTOCOL.md, "StoryCLM generations", not copied from the libraries): every
/// request is answered, none as an unknown command or bad `Data`.
@Suite("Each generation of storyclm.js over the socket")
struct StoryCLMGenerationsTests {
    @Test("the unversioned library of 2016 (FrontendDevTest): openPresentation {presId} opens the presentation at its start slide")
    func library2016() async throws {
        try await withTwo { host in
            let viewer = try await host.connectViewer()
            let answers = try await drain(
                viewer,
                [
                    Sent("getAppInfo"), Sent("getPresentationInfo"), Sent("getPreviousSlide"), Sent("getNextSlide"),
                    Sent("getBackForwardList"), Sent("getMediaFiles"), Sent("getPresentations"), Sent("getUserInfo"),
                    Sent("getGeoLocationInfo"), Sent("setCustomEvent", ["key": "Pacient", "value": "man"]),
                    Sent("setPresentationComplete", answered: false), Sent("openMediaFile", ["name": "nope.pdf"]),
                ])
            // Answered as the apps answer: index.html has no previous slide, the deck no such media
            // file (404: `{name}` without `id` names the current presentation); the rest succeed.
            for (command, answer) in answers {
                let expected = ["getPreviousSlide", "openMediaFile"].contains(command) ? 404 : 200
                #expect(answer.errorCode == expected, "\(command): \(answer.errorMessage)")
            }
            #expect(answers.last?.answer.errorMessage.contains("in presentation 1") == true)
            #expect(try await viewer.request("getCustomEventByKey", data: ["key": "Pacient"]).data == ["value": "man"])
            #expect(try await viewer.request("getCurrentSessions").data["complete"] == true)

            let opened = try await drain(viewer, [Sent("openPresentation", ["presId": 2])])
            #expect(opened.first?.answer.status == .success)
            #expect(opened.first?.answer.data == [:])
            let navigate = try #require(await viewer.nextEvent(named: "navigate"))
            #expect(navigate.data["presentation"] == 2)
            #expect(navigate.data["slide"] == "index.html")
            #expect(navigate.data["data"] == [:])
            #expect(try await viewer.request("openPresentation", data: ["presId": 99]).errorCode == 404)
            #expect(try await viewer.request("openPresentation", data: ["presId": "two"]).errorCode == 400)
            await viewer.close()
        }
    }

    @Test("1.1.0 (flipbook): its debug console's consolelog {log}, consoleinfo {info}, consolewarn {warn}, consoleerror {error} are lines")
    func library110Console() async throws {
        try await withHost { host in
            let viewer = try await host.connectViewer(viewerId: "flipbook")
            // What storyclm-1.1.0.js's console replacement sends (no GUID: it passes no callback):
            // the one argument as it is, an Error's stack, or `arguments` copied by JSON.stringify.
            _ = try await drain(
                viewer,
                [
                    Sent("consolelog", ["log": "page 3"], answered: false),
                    Sent("consolelog", ["log": ["page": 3, "zoom": true]], answered: false),
                    Sent("consoleinfo", ["info": "turned"], answered: false),
                    Sent("consolewarn", ["warn": 42], answered: false),
                    Sent("consoleerror", ["error": "TypeError: x is undefined\n    at turn (js/main.js:3:5)"], answered: false),
                    Sent("consoleerror", ["error": ["0": "failed", "1": 7]], answered: false),
                    Sent("consolelog", [:], answered: false),
                ])
            let answered = try await drain(viewer, [Sent("consoleinfo", ["info": "answered"])])
            #expect(answered.first?.answer.data == ["logged": true])
            let entries = host.runtime.feed.recentEntries.filter { $0["type"] == "console" }
            #expect(entries.map { $0["level"] } == ["log", "log", "info", "warn", "error", "error", "log", "info"])
            #expect(
                entries.map { $0["message"] } == [
                    "page 3", #"{"page":3,"zoom":true}"#, "turned", "42", "TypeError: x is undefined\n    at turn (js/main.js:3:5)",
                    "failed 7", "undefined", "answered",
                ])
            #expect(entries.allSatisfy { $0["viewer"] == "flipbook" && $0["slide"] == "index.html" })
            // None of them shows as a request, and none was refused.
            #expect(host.runtime.feed.recentEntries.allSatisfy { ($0["command"]?.stringValue ?? "").hasPrefix("console") == false })
            await viewer.close()
        }
    }

    @Test("a console command whose Data holds no line is answered 400 naming what it needs, and shows as the failed request")
    func consoleBadForm() async throws {
        try await withHost { host in
            let viewer = try await host.connectViewer()
            let refused = try await viewer.request("consolewarn", data: ["text": "x"])
            #expect(refused.status == .failure)
            #expect(refused.errorCode == 400)
            #expect(refused.errorMessage == "Invalid Data: 'message' is missing: a console line needs 'message', 'args' or 'warn'")
            let badCount = try await viewer.request("consolelog", data: ["log": "x", "dropped": -2])
            #expect(badCount.errorCode == 400)
            #expect(host.runtime.feed.recentEntries.contains { $0["command"] == "consolewarn" })
            await viewer.close()
        }
    }

    @Test("1.1.0 to 1.6.0: the rest of their wire (UI commands with a GUID, open with an empty slideName, setPresentationComplete)")
    func library11To16() async throws {
        try await withTwo { host in
            let viewer = try await host.connectViewer()
            let answers = try await drain(
                viewer,
                [
                    Sent("getNavigationData"), Sent("getCurrentSlideName"), Sent("getMap"), Sent("getBackForwardPresList"),
                    Sent("hideCloseBtn"), Sent("hideMediaLibraryBtn"), Sent("hideMapBtn"), Sent("hideSystemBtns"),
                    Sent("setCustomEvent", ["key": "k", "value": "1"]), Sent("setPresentationComplete", answered: false),
                    Sent("openMediaFile", ["id": -1, "name": "nope.pdf"]),
                ])
            for (command, answer) in answers {
                #expect(answer.errorCode == (command == "openMediaFile" ? 404 : 200), "\(command): \(answer.errorMessage)")
            }
            let open = try await drain(viewer, [Sent("open", ["presId": 2, "slideName": "", "data": [:]])])
            #expect(open.first?.answer.errorCode == 200)
            #expect(try #require(await viewer.nextEvent(named: "navigate")).data["url"] == "/p/2/index.html")
            await viewer.close()
        }
    }

    @Test("1.5.0 and 1.6.0 tables: findByQuery sends the TablesQuery alone (no tableId), countByQuery holds it in query")
    func tables15() async throws {
        try await withHost { host in
            let viewer = try await host.connectViewer()
            let inserted = try await drain(
                viewer,
                [
                    Sent("insertEntries", ["tableId": 7, "entries": [["name": "Sara", "age": 30], ["name": "Tom", "age": 25]]]),
                    Sent("findByQuery", ["skip": 0, "take": 100, "query": #"[age][lt][28]"#, "sort": -1, "sortfield": ""]),
                    Sent(
                        "countByQuery",
                        ["tableId": 7, "query": ["skip": 0, "take": 100, "query": #"[name][sw]["S"]"#, "sort": -1, "sortfield": ""]]),
                    Sent("count", ["tableId": 7]), Sent("tables"),
                ])
            #expect(inserted.allSatisfy { $0.answer.errorCode == 200 }, "\(inserted.map { $0.answer.errorMessage })")
            #expect(inserted[1].answer.data.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Tom"])
            #expect(inserted[2].answer.data == ["count": 1])
            #expect(inserted[3].answer.data == ["count": 2])
            await viewer.close()
        }
    }

    @Test("1.7.0: getsessions, getsessionbyid {id} and sessionconfirm {id}, which marks the session complete")
    func library170() async throws {
        try await withHost { host in
            let viewer = try await host.connectViewer()
            let sessionId = try #require(try await viewer.request("getCurrentSessions").data["sessionId"]?.stringValue)
            #expect(try await viewer.request("getCurrentSessions").data["complete"] == false)
            let answers = try await drain(
                viewer,
                [
                    Sent("getsessions"), Sent("getsessionbyid", ["id": .string(sessionId)]),
                    Sent("sessionconfirm", ["id": .string(sessionId)]),
                ])
            #expect(answers.allSatisfy { $0.answer.errorCode == 200 }, "\(answers.map { $0.answer.errorMessage })")
            #expect(answers[0].answer.data.arrayValue?.contains { $0["sessionId"]?.stringValue == sessionId } == true)
            #expect(answers[1].answer.data["sessionId"]?.stringValue == sessionId)
            #expect(try await viewer.request("getCurrentSessions").data["complete"] == true)
            await viewer.close()
        }
    }

    @Test("1.7.6: sessionupdate sends the session object itself; closePresentation {mode}")
    func library176() async throws {
        try await withHost { host in
            let viewer = try await host.connectViewer()
            let session = try await viewer.request("getCurrentSessions").data
            let answers = try await drain(viewer, [Sent("sessionupdate", session)])
            #expect(answers.first?.answer.errorCode == 200)
            #expect(try await viewer.request("getCurrentSessions").data["complete"] == true)
            _ = try await drain(viewer, [Sent("closePresentation", ["mode": 2], answered: false)])
            let closed = try #require(await viewer.nextEvent(named: "closed"))
            #expect(closed.data["outcome"] == "discarded")
            await viewer.close()
        }
    }
}
