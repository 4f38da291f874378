import Testing

@testable import StoryBridge

@Suite("Wire messages")
struct MessageTests {
    @Test("a request with all members is read as sent")
    func readsRequest() throws {
        let request = try BridgeRequest(json: try JSONValue.parse(#"{"Command":"go","Data":{"slideName":"a.html"},"GUID":"GUID_1abc"}"#))
        #expect(request.command == "go")
        #expect(request.guid == "GUID_1abc")
        #expect(request.data["slideName"] == "a.html")
    }

    @Test("missing Data becomes {} and missing GUID means fire-and-forget")
    func defaults() throws {
        let request = try BridgeRequest(json: ["Command": "closePresentation"])
        #expect(request.data == .emptyObject)
        #expect(request.guid == nil)
    }

    @Test("a frame that is not JSON is rejected with the parser's reason")
    func notJSON() {
        #expect {
            _ = try BridgeRequest.requests(fromFrame: "{not json")
        } throws: { error in
            guard case FrameError.notJSON = error else { return false }
            return true
        }
    }

    @Test("a JSON frame that is not a request says what it got")
    func notARequest() {
        #expect(throws: FrameError.notARequest("expected an object with a 'Command' member, got a number")) {
            _ = try BridgeRequest.requests(fromFrame: "42")
        }
    }

    @Test("a Command of the wrong type names the member and keeps the GUID for the answer")
    func wrongCommandType() {
        #expect(throws: FrameError.invalidMember(name: "Command", reason: "must be a string, got a number", guid: "G1")) {
            _ = try BridgeRequest(json: ["Command": 5, "GUID": "G1"])
        }
    }

    @Test("a GUID of the wrong type is rejected")
    func wrongGUIDType() {
        #expect(throws: FrameError.invalidMember(name: "GUID", reason: "must be a string, got an object", guid: nil)) {
            _ = try BridgeRequest(json: ["Command": "go", "GUID": ["x": 1]])
        }
    }

    @Test("an array frame (a drained legacy queue) yields each element, good or bad")
    func arrayFrame() throws {
        let items = try BridgeRequest.requests(
            fromFrame: #"[{"Command":"getUserInfo","GUID":"G1"},{"Data":{}},{"Command":"getAppInfo","GUID":"G2"}]"#)
        #expect(items.count == 3)
        #expect((try? items[0].get())?.guid == "G1")
        #expect((try? items[1].get()) == nil)
        #expect((try? items[2].get())?.command == "getAppInfo")
    }

    @Test("responses use the PascalCase keys and integer codes")
    func responseShape() throws {
        let response = BridgeResponse.failure(guid: "G", error: .notFound("Slide 'x.html' not found"))
        #expect(
            response.json.jsonString()
                == #"{"Data":{},"ErrorCode":404,"ErrorMessage":"Slide 'x.html' not found","GUID":"G","Status":"Failure"}"#)
        #expect(BridgeResponse(json: response.json) == response)
    }

    @Test("events never carry a GUID")
    func eventShape() {
        let event = HostEvent.navigate(presentationId: 1, slide: "a.html", url: "/p/1/a.html", data: [:])
        #expect(event.json["GUID"] == nil)
        #expect(event.json["Event"] == "navigate")
    }

    @Test("integers stay integers and doubles stay doubles through a round trip")
    func numbers() throws {
        let value = try JSONValue.parse(#"{"a":200,"b":1.5,"c":-3,"d":[true,null,"x"]}"#)
        #expect(value["a"] == .int(200))
        #expect(value["b"] == .double(1.5))
        #expect(value.jsonString() == #"{"a":200,"b":1.5,"c":-3,"d":[true,null,"x"]}"#)
    }

    @Test(
        "command names are trimmed and legacy spellings mapped",
        arguments: [
            ("openMediaLibrary ", "openMediaLibrary"), ("getsessions", "getSessions"), ("getsessionbyid", "getSessionById"),
            ("setPresentationComplete", "setSessionComplete"), ("sessionupdate", "setSessionComplete"), ("\tgo\n", "go"),
            ("openPresentation", "open"), ("sessionconfirm", "setSessionComplete"), ("consoleinfo", "consoleinfo"),
        ])
    func canonicalNames(raw: String, expected: String) {
        #expect(CommandNames.canonical(raw) == expected)
    }

    @Test("typed Data reads name the field on failure")
    func dataReads() throws {
        let request = BridgeRequest(command: "x", data: ["name": 5, "id": "12", "text": "hi"])
        #expect(throws: BridgeError.invalidData(field: "name", reason: "must be a string, got a number")) {
            _ = try request.string("name")
        }
        #expect(throws: BridgeError.invalidData(field: "missing", reason: "is missing")) {
            _ = try request.string("missing")
        }
        #expect(try request.int("id") == 12)
        #expect(try request.string("text") == "hi")
        #expect(throws: BridgeError.invalidData(field: "Data", reason: "must be an object, got an array")) {
            _ = try BridgeRequest(command: "x", data: [1, 2]).string("a")
        }
    }

    @Test("a request object is read member by member as a parsed object would be: extra members ignored, the last duplicate wins")
    func requestObjectMembers() throws {
        let frame = #" {"GUID":"G0","Data":{"a":[1,{"b":null}]},"Extra":{"deep":[[]]},"Command":"first","Command":"go","GUID":"G1"} "#
        let requests = try BridgeRequest.requests(fromFrame: frame)
        #expect(requests == [.success(BridgeRequest(command: "go", data: ["a": [1, ["b": .null]]], guid: "G1"))])
        #expect(try BridgeRequest.requests(fromFrame: #"{"Command":"x","Data":null}"#) == [.success(BridgeRequest(command: "x"))])
        #expect(try BridgeRequest.requests(fromFrame: #"{"Command":"x","Data":{}}"#).first == .success(BridgeRequest(command: "x")))
        #expect(
            try BridgeRequest.requests(fromFrame: #"{"Command":"caf\u00e9 \"q\""}"#).first == .success(BridgeRequest(command: "café \"q\""))
        )
        // Member names are compared as bytes where they lie, unless they are escaped: then decoded.
        #expect(
            try BridgeRequest.requests(fromFrame: #"{"Comm\u0061nd":"x","GUI\u0044":"G3","Dat":1,"GUIDE":2,"":3}"#).first
                == .success(BridgeRequest(command: "x", guid: "G3")))
        #expect(throws: FrameError.notJSON("control character in a string at byte 4")) {
            _ = try BridgeRequest.requests(fromFrame: "{\"Co\u{01}mmand\":\"x\"}")
        }
        #expect(throws: FrameError.notJSON("unterminated string at byte 9")) {
            _ = try BridgeRequest.requests(fromFrame: #"{"Command"#)
        }
        #expect(throws: FrameError.notJSON("unexpected data after the JSON value at byte 16")) {
            _ = try BridgeRequest.requests(fromFrame: #"{"Command":"x"} {}"#)
        }
        #expect(throws: FrameError.invalidMember(name: "Command", reason: "is missing", guid: "G2")) {
            _ = try BridgeRequest.requests(fromFrame: #"{"GUID":"G2","Data":{}}"#)
        }
        #expect(throws: FrameError.invalidMember(name: "GUID", reason: "must be a string, got a number", guid: nil)) {
            _ = try BridgeRequest.requests(fromFrame: #"{"Command":"x","GUID":7}"#)
        }
    }

    @Test("frames nested deeper than 64 levels are refused before decoding, whatever their depth")
    func deepNesting() {
        for depth in [65, 600, 100_000] {
            #expect(throws: FrameError.notJSON("arrays and objects nested deeper than 64 levels")) {
                _ = try BridgeRequest.requests(fromFrame: String(repeating: "[", count: depth))
            }
            // The same through a request object's Data.
            #expect(throws: FrameError.notJSON("arrays and objects nested deeper than 64 levels")) {
                _ = try BridgeRequest.requests(fromFrame: #"{"Command":"x","Data":"# + String(repeating: "[", count: depth))
            }
        }
        #expect(throws: Never.self) {
            _ = try BridgeRequest.requests(
                fromFrame: #"{"Command":"x","Data":"# + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "}")
        }
        #expect(throws: Never.self) { _ = try JSONValue.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)) }
        #expect(throws: Never.self) {
            _ = try JSONValue.parse(#"["[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["]"#)
        }
    }
}
