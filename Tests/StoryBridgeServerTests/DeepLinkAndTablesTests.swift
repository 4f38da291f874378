import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@Suite("Deep linking and tables over a real WebSocket")
struct DeepLinkAndTablesTests {
    @Test("a viewer launched by the deep link reads it; others get 404; / redirects to its slide")
    func inbound() async throws {
        let link = try DeepLink("storyclm://content?contentId=1&slide=details.html&campaign=spring&source=mail")
        let host = try await TestHost.start(presentationFolders: [demoFolder], deepLink: link)
        let root = try await httpGet(host.baseURL + "/")
        #expect(root.headers["location"] == "/p/1/details.html?sbdeeplink=1")
        let launched = try await host.connectViewer(slide: "details.html", viaDeepLink: true)
        let inbound = try await launched.request("getDeepLinkingInboundData").data
        #expect(inbound["uri"] == .string(link.uri))
        #expect(inbound["source"] == "mail")
        #expect(inbound["parameters"]?["campaign"] == "spring")
        #expect(inbound["parameters"]?["slide"] == "details.html")
        let plain = try await host.connectViewer()
        let none = try await plain.request("getDeepLinkingInboundData")
        #expect(none.errorCode == 404)
        #expect(none.errorMessage == "Not launched by a deep link")
        await launched.close()
        await plain.close()
        await host.stop()
    }

    @Test("a session's inbound and outbound deep links are recorded, queued with the saved session and uploaded as deeplinking events")
    func deepLinkAnalytics() async throws {
        let link = try DeepLink("storyclm://content?contentId=1&slide=details.html&campaign=spring&source=mail")
        let host = try await TestHost.start(
            presentationFolders: [demoFolder], policy: ViewerPolicy(closeDecision: .save, restoreDecision: .new), deepLink: link)
        let viewer = try await host.connectViewer(slide: "details.html", viaDeepLink: true)
        let sessionId = try #require(try await viewer.request("getCurrentSessions").data["sessionId"]?.stringValue)
        _ = try await viewer.request("setDeepLinkingOutboundScheme", data: ["scheme": "crm-app"])
        _ = try await viewer.request("setDeepLinkingOutboundParameter", data: ["key": "client", "value": "42"])
        #expect(try await viewer.request("closePresentation", data: ["mode": 1]).status == .success)
        await viewer.close()

        let links = try await host.runtime.analytics.deepLinks(sessionId: sessionId)
        #expect(links.map(\.direction) == [.inbound, .outbound])
        #expect(links.first?.uri == link.uri)
        #expect(links.first?.source == "mail")
        #expect(links.first?.parameters["campaign"] == "spring")
        #expect(links.last?.uri == "crm-app://?client=42")
        #expect(links.last?.source == "crm-app")

        let (collector, received) = try await makeCollector()
        let upload = uploader(host.runtime.analytics, port: collector.port)
        _ = await upload.runOnce()
        await upload.shutdown()
        await collector.stop()
        let inbound = try #require(try received.messages(eventId: UploadEventId.deepLinkInbound).first)
        #expect(inbound.headers["s-m-ct"] == sessionId)
        #expect(try JSONValue.parse(inbound.body)["uri"] == .string(link.uri))
        let outbound = try #require(try received.messages(eventId: UploadEventId.deepLinkOutbound).first)
        #expect(try JSONValue.parse(outbound.body)["parameters"] == ["client": "42"])
        #expect(try received.messages(eventId: UploadEventId.session).count == 1)
        await host.stop()
    }

    @Test("outbound scheme and parameters are kept, validated and exposed")
    func outbound() async throws {
        try await withHost { host in
            let viewer = try await host.connectViewer()
            #expect(try await viewer.request("getDeepLinkingOutboundData").data == ["source": nil, "parameters": [:]])
            let bad = try await viewer.request("setDeepLinkingOutboundScheme", data: ["scheme": "1nvalid scheme"])
            #expect(bad.errorCode == 400)
            #expect(bad.errorMessage.contains("'1nvalid scheme' is not a URI scheme"))
            #expect(try await viewer.request("setDeepLinkingOutboundScheme", data: ["scheme": "crm-app"]).status == .success)
            _ = try await viewer.request("setDeepLinkingOutboundParameter", data: ["key": "client", "value": "42"])
            _ = try await viewer.request("setDeepLinkingOutboundParameter", data: ["key": "tmp", "value": "x"])
            #expect(try await viewer.request("getDeepLinkingOutboundParameter", data: ["key": "client"]).data == ["value": "42"])
            #expect(try await viewer.request("deleteDeepLinkingOutboundParameter", data: ["key": "tmp"]).data == ["key": "tmp"])
            #expect(try await viewer.request("getDeepLinkingOutboundParameter", data: ["key": "tmp"]).errorCode == 404)
            #expect(
                try await viewer.request("getDeepLinkingOutboundData").data
                    == ["source": "crm-app", "parameters": ["client": "42"]])
            let exposed = try JSONValue.parse(try await httpGet(host.baseURL + "/__storybridge/deeplinks?token=\(host.server.token)").body)
            let entry = exposed["viewers"]?.arrayValue?.first { $0["viewer"] == .string(viewer.viewerId) }
            #expect(entry?["outboundURI"] == "crm-app://?client=42")
            await viewer.close()
        }
    }

    @Test("tables: insert, find by id/ids/query with sort and paging, count, update, delete")
    func tables() async throws {
        let host = try await TestHost.start(
            presentationFolders: [demoFolder],
            tables: [TableDefinition(id: 6, name: "Profile", schema: [.init(k: "Name", t: 1), .init(k: "Age", t: 2)])])
        let viewer = try await host.connectViewer()
        let listed = try await viewer.request("tables").data
        #expect(listed.arrayValue?.first?["name"] == "Profile")
        let one = try await viewer.request("insertEntry", data: ["tableId": 6, "entry": ["Name": "Vera", "Age": 31, "gender": false]])
        let id = try #require(one.data["_id"]?.stringValue)
        #expect(id.count == 24)
        let many = try await viewer.request(
            "insertEntries",
            data: [
                "tableId": 6,
                "entries": [
                    ["Name": "Stanislav", "Age": 22, "gender": true], ["Name": "Tamerlan", "Age": 22, "gender": true],
                    ["Name": "Anna", "Age": 45, "gender": false],
                ],
            ])
        #expect(many.data.arrayValue?.count == 3)
        #expect(try await viewer.request("findById", data: ["tableId": 6, "id": .string(id)]).data["Name"] == "Vera")
        #expect(try await viewer.request("findById", data: ["tableId": 6, "id": "nope"]).errorCode == 404)
        let ids = many.data.arrayValue!.compactMap { $0["_id"] }
        #expect(try await viewer.request("findByIds", data: ["tableId": 6, "ids": .array(ids)]).data.arrayValue?.count == 3)

        // storyclm.js sends the TablesQuery itself; ours adds tableId.
        let query: JSONValue = [
            "tableId": 6, "query": #"([Name][sw]["S"][or][Name][sw]["T"])[and][age][eq][22]"#, "skip": 0, "take": 100,
            "sort": 1, "sortfield": "Name",
        ]
        let found = try await viewer.request("findByQuery", data: query).data
        #expect(found.arrayValue?.map { $0["Name"] } == ["Tamerlan", "Stanislav"])
        let page = try await viewer.request(
            "findByQuery", data: ["tableId": 6, "query": "", "skip": 1, "take": 2, "sort": 0, "sortfield": "Age"])
        #expect(page.data.arrayValue?.map { $0["Age"] } == [22, 31])
        // The original library's TablesQuery has no tableId: fine while there is one table.
        let untagged = try await viewer.request(
            "findByQuery", data: ["query": "[Age][gt][30]", "skip": 0, "take": 100, "sort": -1, "sortfield": ""])
        #expect(untagged.data.arrayValue?.count == 2)
        #expect(try await viewer.request("count", data: ["tableId": 6]).data == ["count": 4])
        #expect(try await viewer.request("countByQuery", data: ["tableId": 6, "query": "[gender][eq][false]"]).data == ["count": 2])
        let badQuery = try await viewer.request("countByQuery", data: ["tableId": 6, "query": "[Age][between][1]"])
        #expect(badQuery.errorCode == 400)
        #expect(badQuery.errorMessage.contains("unknown operator 'between'"))

        let updated = try await viewer.request(
            "updateEntry", data: ["tableId": 6, "entry": ["_id": .string(id), "Name": "Vera", "Age": 32]])
        #expect(updated.data["Age"] == 32)
        let missing = try await viewer.request("updateEntries", data: ["tableId": 6, "entries": [["_id": "nope", "Age": 1]]])
        #expect(missing.errorCode == 404)
        #expect(try await viewer.request("deleteById", data: ["tableId": 6, "id": .string(id)]).data["Name"] == "Vera")
        #expect(try await viewer.request("deleteByIds", data: ["tableId": 6, "ids": .array(ids)]).data.arrayValue?.count == 3)
        #expect(try await viewer.request("count", data: ["tableId": 6]).data == ["count": 0])
        #expect(try await viewer.request("insertEntry", data: ["tableId": "six", "entry": [:]]).errorMessage.contains("'tableId'"))
        await viewer.close()
        await host.stop()
    }
}
