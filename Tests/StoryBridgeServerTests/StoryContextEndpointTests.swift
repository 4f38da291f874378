import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `method` on `url` with `body`; the status and the body as text.
private func call(_ method: String, _ url: String, body: String? = nil) async throws -> (status: Int, text: String) {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method
    if let body { request.httpBody = Data(body.utf8) }
    let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
    return ((response as! HTTPURLResponse).statusCode, String(decoding: data, as: UTF8.self))
}

@Suite("Story context endpoint")
struct StoryContextEndpointTests {
    @Test("GET, PUT and DELETE need the token, keep exact types, refuse what the scheme forbids, and reach open pages")
    func endpoint() async throws {
        try await withHost(folders: [storyContextFixture]) { host in
            let base = host.baseURL + "/__storybridge/context?presentation=1"
            let authorised = base + "&token=" + host.server.token
            #expect(try await call("GET", base).status == 403)
            #expect(try await call("PUT", base + "&keyPath=form.x", body: #"{"value": 1}"#).status == 403)
            // Other paths still take no writes.
            #expect(try await call("PUT", host.baseURL + "/__storybridge/info").status == 405)

            let whole = try await call("GET", authorised)
            #expect(whole.status == 200)
            #expect(try JSONValue.parse(whole.text)["story"]?["form"]?["rating"]?["value"] == 3)

            // A page of the presentation gets every change.
            let viewer = try await host.connectViewer()
            _ = await viewer.nextEvent(named: "hello")
            let set = try await call("PUT", authorised + "&keyPath=form.rating.value", body: #"{"value": 4.0}"#)
            #expect(set.status == 200)
            #expect(set.text == #"{"changed":true,"keyPath":"form.rating.value","presentation":1,"type":"float","value":4.0}"#)
            let pushed = try #require(await viewer.nextEvent(named: StoryContextService.changeEvent))
            #expect(pushed.data["presentation"] == 1)
            // A page's number has no integer/float kind: the event carries 4.0 as JavaScript would write it.
            #expect(pushed.data["story"]?["form"]?["rating"]?["value"]?.doubleValue == 4.0)
            #expect(try await call("GET", authorised + "&keyPath=form.rating.value").text.hasSuffix(#""type":"float","value":4.0}"#))

            let typed = try await call("PUT", authorised + "&keyPath=form.count", body: #"{"value": "7", "type": "integer"}"#)
            #expect(typed.text.hasSuffix(#""type":"integer","value":7}"#))
            let null = try await call("PUT", authorised + "&keyPath=form.flag", body: #"{"value": null}"#)
            #expect(null.text.hasSuffix(#""type":"null","value":null}"#))
            let deleted = try await call("DELETE", authorised + "&keyPath=form.flag")
            #expect(deleted.text == #"{"changed":true,"deleted":true,"keyPath":"form.flag","presentation":1}"#)
            #expect(try await call("GET", authorised + "&keyPath=form.flag").status == 404)

            let readOnly = try await call("PUT", authorised + "&keyPath=pageNotes.text", body: #"{"value": "x"}"#)
            #expect(readOnly.status == 403)
            #expect(readOnly.text.contains("object 'pageNotes' is read-only to the app side"))
            #expect(try await call("PUT", authorised + "&keyPath=presentation.id", body: #"{"value": 2}"#).status == 403)
            #expect(try await call("PUT", authorised + "&keyPath=nothing.x", body: #"{"value": 2}"#).status == 404)
            #expect(try await call("PUT", authorised + "&keyPath=form.x", body: #"{"value": 2.5, "type": "integer"}"#).status == 400)
            #expect(try await call("PUT", authorised + "&keyPath=form.x", body: "not json").status == 400)
            #expect(try await call("PUT", authorised + "&keyPath=form.rating.value.deeper", body: #"{"value": 1}"#).status == 400)
            #expect(try await call("GET", host.baseURL + "/__storybridge/context?presentation=9&token=" + host.server.token).status == 404)
            let stored = try await host.runtime.storyContext.value(at: StoryAddress("form"), presentationId: 1)
            #expect(stored == ["rating": ["value": 4.0, "visible": true], "notes": ["text": "Starting note"], "count": 7])
            await viewer.close()
        }
    }
}
