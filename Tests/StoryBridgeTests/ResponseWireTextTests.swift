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

    @Test("an answer whose data is changed is written with the new data, not the text kept for the old")
    func changedDataDropsKeptText() throws {
        let kept = EncodedJSON(["slide": "index.html"])
        var response = BridgeResponse(
            guid: "G4", status: .success, errorCode: 200, errorMessage: "", payload: .encoded(kept))
        #expect(response.jsonText == response.json.jsonString())
        #expect(response.data == kept.value)
        response.data = ["slide": "next.html"]
        #expect(response.jsonText.contains("next.html"))
        #expect(!response.jsonText.contains("index.html"))
        #expect(response.jsonText == response.json.jsonString())

        var reply = ModuleReply(encoded: kept)
        #expect(reply.data == kept.value)
        reply.data = ["slide": "other.html"]
        let answered = BridgeResponse(
            guid: "G5", status: reply.status, errorCode: reply.code, errorMessage: reply.message,
            payload: reply.payload)
        #expect(answered.jsonText.contains("other.html"))
        #expect(!answered.jsonText.contains("index.html"))
    }
}
