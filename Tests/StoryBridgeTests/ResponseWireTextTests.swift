import Testing

@testable import StoryBridge

@Suite("Response wire text")
struct ResponseWireTextTests {
    @Test("the direct writer gives the same text as serialising the response object")
    func sameAsObject() throws {
        let responses = [
            BridgeResponse.success(guid: "G\"1", data: ["slide": "a\\b\n.html", "list": [1, 2.5, true, .null]]),
            BridgeResponse.failure(guid: "G2", error: .unknownCommand("nöpe\u{01}")),
            BridgeResponse(guid: "G3", status: .success, errorCode: 200, errorMessage: "", data: "plain"),
        ]
        for response in responses {
            #expect(response.jsonText == response.json.jsonString())
            #expect(BridgeResponse(json: try JSONValue.parse(response.jsonText)) == response)
        }
    }
}
