import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// `storybridge test` steps for Veeva calls, and `serve --record` writing them.
@Suite("Veeva steps in test scripts")
struct VeevaScriptTests {
    @Test("veeva steps send a library's request string and check what its callback gets; navigation follows the presentation")
    func veevaSteps() async throws {
        let result = try await runTestScript(delivery: { try VeevaDeliveryFixture.writeZips(in: $0) }) { delivery in
            """
            name: Veeva calls
            presentation: \(delivery.path)
            tests:
              - name: answers and navigation
                slide: KM_B/KM_B.html
                steps:
                  - veeva: "getDataForObjectV2(Account),fieldName(Name),cbName(result)"
                    expect: {success: true, Account: {Name: "Dr. Ada Lovelace"}}
                  - veeva: "vaultcrm:queryObject(pricing_rule__v),fields(id),where(WHERE account__v='001B'),cbQuery(result)"
                    expect: {record_count: 1, pricing_rule__v: [{id: "V-2"}]}
                  - veeva: "vaultcrm:getAppVersion(),com_veeva_clm_appVersion(result)"
                    expect: {success: true, Version: "262.2.30"}
                  - veeva: "saveObjectV2(Call_Clickstream_vod__c),value({\\"Answer_vod__c\\":\\"a\\"}),callback(cbSave)"
                    expectLike: {success: true, operation: insert, objectId: "$type:string"}
                  - veeva: "nextSlide()"
                  - expectEvent: navigate
                    data: {url: "/p/1/KM_A/KM_A.html"}
                  - load: KM_A/KM_A.html
                  - veeva: "getDataForObjectV2(KeyMessage),fieldName(Name),cbKM(result)"
                    expect: {Account: {Name: "not what is answered"}}
            """
        }
        #expect(result.status == 1, "\(result.output)\(result.errors)")
        #expect(result.output.contains("step 8 (send veeva.request) failed"), "\(result.output)")
        #expect(result.output.contains("0 passed, 1 failed"))
    }

    @Test("a test that names no slide opens the presentation's entry key message, in process and against a running serve")
    func entrySlideByDefault() async throws {
        let result = try await runTestScript(delivery: { try VeevaDeliveryFixture.writeZips(in: $0) }) { delivery in
            """
            name: Veeva entry slide
            presentation: \(delivery.path)
            tests:
              - name: opens where the deck starts
                steps:
                  - send: getCurrentSlideName
                    expect: {data: {slide: KM_B/KM_B.html}}
                  - browser: open
                  - waitFor: "window.__storybridge.state.connected"
            """
        }
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        #expect(result.output.contains("1 passed, 0 failed"), "\(result.output)")

        // Against a running serve of the delivery: the entry slide read from where /p/1 leads.
        try await withScratchFolder("sb-cli") { folder in
            let delivery = folder.appendingPathComponent("delivery")
            try VeevaDeliveryFixture.writeZips(in: delivery)
            let script = folder.appendingPathComponent("remote.yaml")
            try """
            name: Veeva entry slide, remote
            tests:
              - name: opens where the deck starts
                steps:
                  - send: getCurrentSlideName
                    expect: {data: {slide: KM_B/KM_B.html}}
            """.write(to: script, atomically: true, encoding: .utf8)
            let serve = try await ServeProcess.start([delivery.path, "--port", "0", "--no-watch"])
            let remote = try await runStorybridge(["test", script.path, "--url", serve.baseURL])
            _ = await serve.interrupt()
            #expect(remote.status == 0, "\(remote.output)\(remote.errors)")
        }
    }

    @Test("a recorded Veeva request becomes a veeva step expecting what its callback got")
    func recorded() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sb-veeva-record-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let recorder = ClickThroughRecorder(file: file, decks: [.init(path: "/decks/veeva", id: 1)])
        #expect(recorder.handle(["type": "connection", "viewer": "v1", "connected": true, "slide": "KM_B/KM_B.html", "presentation": 1]))
        #expect(
            recorder.handle([
                "type": "exchange", "viewer": "v1", "command": "veeva.request", "guid": "SB_1",
                "data": ["request": "saveObjectV2(Account),value({}),callback(cb)", "transport": "messageHandler"],
                "status": "Success", "code": 200,
                "response": ["callback": "cb", "result": ["success": true, "objectId": "SB123", "operation": "insert"]],
            ]))
        try recorder.write()
        let script = try TestScript.load(file)
        #expect(script.tests.count == 1)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("veeva") && text.contains("expectLike"))
        #expect(text.contains("saveObjectV2(Account)"))
        #expect(!text.contains("transport"))
    }
}
