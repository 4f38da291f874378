import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeTesting
import Testing

/// `storybridge test` steps for OCE `CLMPlayer` calls, and `serve --record` writing them.
@Suite("OCE steps in test scripts")
struct OceScriptTests {
    @Test("oce steps send a CLMPlayer call and check the host's answer; navigation follows the sequences; a failing step is named")
    func oceSteps() async throws {
        let result = try await runTestScript(delivery: OceDeliveryFixture.writeZips(in:)) { delivery in
            """
            name: OCE calls
            presentation: \(delivery.path)
            tests:
              - name: navigation, analytics and refusals
                slide: Intro/01_welcome.html
                steps:
                  - oce: startTrackingPage
                    params: {pageid: welcome}
                  - oce: addAction
                    params: {action__c: "Opened", pageid__c: welcome}
                  - oce: saveState
                    params: {state: "step 2"}
                  - oce: alert
                    params: {msg: "Hello"}
                    expect: {alert: "Hello"}
                  - oce: getSurveyFlowJson
                    params: {json: "{}"}
                    expect: {refused: "CLMPlayer.getSurveyFlowJson: not carried out by storybridge: what the OCE app does with it is not documented publicly"}
                  - oce: gotoSlide
                    params: {sequenceId: null, slideName: "02_overview.html", animation: null}
                  - expectEvent: navigate
                    data: {url: "/p/1/Intro/02_overview.html"}
                  - load: Intro/02_overview.html
                  - oce: goNextSequence
                  - expectEvent: navigate
                    data: {url: "/p/1/Safety/01_safety.html"}
                  - load: Safety/01_safety.html
                  - oce: goNextSequence
                    expect: {refused: "not what is answered"}
            """
        }
        #expect(result.status == 1, "\(result.output)\(result.errors)")
        #expect(result.output.contains("step 12 (send oce.call) failed"), "\(result.output)")
        #expect(result.output.contains("0 passed, 1 failed"))
    }

    @Test("a recorded CLMPlayer call becomes an oce step with its params and the host's answer")
    func recorded() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sb-oce-record-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        let recorder = ClickThroughRecorder(file: file, decks: [.init(path: "/decks/oce", id: 1)])
        #expect(
            recorder.handle(["type": "connection", "viewer": "v1", "connected": true, "slide": "Intro/01_welcome.html", "presentation": 1]))
        #expect(
            recorder.handle([
                "type": "exchange", "viewer": "v1", "command": "oce.call", "guid": "SB_1",
                "data": ["request": "gotoSlide", "params": ["sequenceId": "SEQ-EFF", "slideName": .null], "transport": "nativeCall"],
                "status": "Success", "code": 200, "response": ["handled": true],
            ]))
        try recorder.write()
        let script = try TestScript.load(file)
        #expect(script.tests.count == 1)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"oce\" : \"gotoSlide\"") && text.contains("SEQ-EFF") && text.contains("handled"), "\(text)")
        #expect(!text.contains("transport"))
    }
}
