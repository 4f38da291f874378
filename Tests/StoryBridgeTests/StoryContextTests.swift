import Foundation
import Synchronization
import Testing

@testable import StoryBridge

@Suite("Story context: key paths, types, scheme, storage")
struct StoryContextTests {
    static let definitionText = """
        {
          "scheme": {
            "app": {"appMutable": false, "contentMutable": false},
            "questProgress": {"appMutable": true, "contentMutable": false},
            "debugAppState": {"appMutable": true, "contentMutable": true},
            "contentNotes": {"appMutable": false, "contentMutable": true}
          },
          "questProgress": {"stageName": "Study", "state": "Success"},
          "debugAppState": {"presentation": {"rating": {"value": 3, "visible": true}}, "f1": 0, "ratio": 0.5}
        }
        """

    static func definition() throws -> StoryContextDefinition {
        try StoryContextDefinition(json: try JSONValue.parse(definitionText), source: "test")
    }

    static func set(_ address: String, _ type: StoryPropType, _ value: JSONValue) throws -> StoryChange {
        StoryChange(try StoryAddress(address), .set(try type.coerce(value)))
    }

    @Test("a set creates the objects on its key path; a delete removes the key; the empty path is the object")
    func keyPaths() throws {
        var context = try Self.definition().startingContext
        #expect(try context.apply(Self.set("debugAppState.a.b.c", .string, "deep"), by: .content))
        #expect(context.objects["debugAppState"]?["a"] == ["b": ["c": "deep"]])
        #expect(try context.apply(Self.set("debugAppState.presentation.rating.value", .integer, 5), by: .content))
        #expect(context.objects["debugAppState"]?["presentation"]?["rating"] == ["value": 5, "visible": true])
        // The same value again changes nothing; deleting a key that is not there neither.
        #expect(try !context.apply(Self.set("debugAppState.presentation.rating.value", .integer, 5), by: .content))
        #expect(try !context.apply(StoryChange(StoryAddress("debugAppState.missing.key"), .delete), by: .content))
        #expect(try context.apply(StoryChange(StoryAddress("debugAppState.presentation.rating.visible"), .delete), by: .content))
        #expect(context.objects["debugAppState"]?["presentation"]?["rating"] == ["value": 5])
        // A null intermediate becomes an object, as in the apps.
        #expect(try context.apply(Self.set("debugAppState.n", .null, nil), by: .content))
        #expect(try context.apply(Self.set("debugAppState.n.inner", .boolean, true), by: .content))
        #expect(context.objects["debugAppState"]?["n"] == ["inner": true])
        #expect(try context.apply(StoryChange(StoryAddress("debugAppState"), .delete), by: .content))
        #expect(context.objects["debugAppState"] == .emptyObject)
        #expect(try context.apply(Self.set("debugAppState", .object, ["x": 1]), by: .app))
        #expect(context.objects["debugAppState"] == ["x": 1])
    }

    @Test("refusals: content past contentMutable, the app past appMutable, host objects, undeclared objects, paths through values")
    func refusals() throws {
        var context = try Self.definition().startingContext
        let before = context
        #expect(throws: StoryContextError.readOnlyToContent("questProgress")) {
            try context.apply(Self.set("questProgress.state", .string, "Failed"), by: .content)
        }
        #expect(throws: StoryContextError.readOnlyToApp("contentNotes")) {
            try context.apply(Self.set("contentNotes.text", .string, "x"), by: .app)
        }
        for name in ["app", "user", "presentation"] {
            #expect(throws: StoryContextError.filledByHost(name)) {
                try context.apply(Self.set("\(name).id", .string, "x"), by: .app)
            }
        }
        #expect(throws: StoryContextError.undeclaredObject("other")) {
            try context.apply(Self.set("other.a", .integer, 1), by: .app)
        }
        #expect(throws: StoryContextError.crossesValue(path: "questProgress.state.x", at: "questProgress.state", found: "string")) {
            try context.apply(Self.set("questProgress.state.x", .integer, 1), by: .app)
        }
        #expect(throws: StoryContextError.typeMismatch(type: "object", value: "1")) {
            try context.apply(Self.set("debugAppState", .integer, 1), by: .app)
        }
        #expect(context == before)
        // The app side may change what content may not, and the other way round.
        #expect(try context.apply(Self.set("questProgress.state", .string, "Failed"), by: .app))
        #expect(try context.apply(Self.set("contentNotes.text", .string, "note"), by: .content))
    }

    @Test("changes as the client sends them: types are checked, Android's text arguments are read by type")
    func changeMessages() throws {
        let float = try StoryChange(json: ["op": "set", "objectName": "o", "keyPath": "a.b", "type": "float", "value": 3])
        #expect(float.operation == .set(.double(3)))
        let fromText = try StoryChange(json: ["op": "set", "objectName": "o", "keyPath": "n", "type": "integer", "value": "42"])
        #expect(fromText.operation == .set(.int(42)))
        let null = try StoryChange(json: ["op": "set", "objectName": "o", "keyPath": "n", "type": "null", "value": nil])
        #expect(null.operation == .set(.null))
        let delete = try StoryChange(json: ["op": "delete", "objectName": "o", "keyPath": "a.b"])
        #expect(delete == StoryChange(try StoryAddress("o.a.b"), .delete))
        #expect(throws: StoryContextError.typeMismatch(type: "integer", value: "2.5")) {
            try StoryChange(json: ["op": "set", "objectName": "o", "keyPath": "n", "type": "integer", "value": 2.5])
        }
        #expect(throws: StoryContextError.unknownType("number")) {
            try StoryChange(json: ["op": "set", "objectName": "o", "keyPath": "n", "type": "number", "value": 1])
        }
        #expect(throws: StoryContextError.invalidKeyPath("a..b", reason: "a name between dots is empty")) {
            try StoryChange(json: ["op": "delete", "objectName": "o", "keyPath": "a..b"])
        }
    }

    @Test("integers and floats, null and deleted keys round-trip through the text the host stores")
    func typedText() throws {
        let value: JSONValue = ["i": 3, "f": 3.0, "g": 2.5, "big": 1e20, "n": nil, "s": "3.0", "o": ["x": -0.25]]
        let text = StoryContextJSON.text(value)
        #expect(text == #"{"big":1e+20,"f":3.0,"g":2.5,"i":3,"n":null,"o":{"x":-0.25},"s":"3.0"}"#)
        #expect(try StoryContextJSON.parse(text) == value)
    }

    @Test("stored changes survive a reopened database with their types; refused changes leave the rest applied")
    func storage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-story-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("test.sqlite")
        let definition = try Self.definition()
        do {
            let store = StoryContextStore(database: try StoryBridgeDatabase(file: file))
            let outcome = try await store.apply(
                [
                    try Self.set("debugAppState.f1", .float, 1), try Self.set("questProgress.state", .string, "x"),
                    try Self.set("debugAppState.count", .integer, 2), try Self.set("debugAppState.empty", .null, nil),
                    StoryChange(try StoryAddress("debugAppState.ratio"), .delete),
                ], by: .content, presentationId: 7, userId: "u", definition: definition)
            #expect(outcome.changed)
            #expect(outcome.refusals == [nil, .readOnlyToContent("questProgress"), nil, nil, nil])
        }
        let reopened = StoryContextStore(database: try StoryBridgeDatabase(file: file))
        let context = try await reopened.context(presentationId: 7, userId: "u", definition: definition)
        let state = try #require(context.objects["debugAppState"]?.objectValue)
        #expect(state["f1"] == .double(1))
        #expect(state["count"] == .int(2))
        #expect(state["empty"] == .null)
        #expect(state["ratio"] == nil)
        #expect(context.objects["questProgress"] == ["stageName": "Study", "state": "Success"])
        // Another user and another presentation start from the definition.
        let other = try await reopened.context(presentationId: 7, userId: "v", definition: definition)
        #expect(other == definition.startingContext)
        #expect(try await reopened.reset(presentationId: 7, userId: "u") == 1)
        #expect(try await reopened.context(presentationId: 7, userId: "u", definition: definition) == definition.startingContext)
    }

    @Test("definitions: every object declared, host objects read-only and without values; the presentation's file wins")
    func definitions() throws {
        #expect(throws: StoryContextError.invalidDefinition(source: "t", reason: "object 'x' is not declared in 'scheme'")) {
            try StoryContextDefinition(json: ["scheme": [:], "x": ["a": 1]], source: "t")
        }
        #expect(throws: StoryContextError.invalidDefinition(source: "t", reason: "'user' is filled by the host; remove its values")) {
            try StoryContextDefinition(json: ["scheme": [:], "user": ["id": "1"]], source: "t")
        }
        #expect(throws: StoryContextError.invalidDefinition(source: "t", reason: "object 'x' must be a JSON object")) {
            try StoryContextDefinition(json: ["scheme": ["x": ["appMutable": true, "contentMutable": true]], "x": 1], source: "t")
        }
        let base = try StoryContextDefinition(
            json: [
                "scheme": ["a": ["appMutable": true, "contentMutable": true], "b": ["appMutable": true, "contentMutable": false]],
                "a": ["v": 1], "b": ["v": 1],
            ], source: "base")
        let own = try StoryContextDefinition(
            json: ["scheme": ["b": ["appMutable": false, "contentMutable": true]], "b": ["w": 2]], source: "own")
        let merged = base.overlaid(by: own)
        #expect(merged.scheme["b"] == StoryObjectScheme(appMutable: false, contentMutable: true))
        #expect(merged.objects == ["a": ["v": 1], "b": ["w": 2]])
    }

    @Test("the slide's story text is kept until a change here, in another process, or in the definition file")
    func pageStoryCache() async throws {
        let folder = try TemporaryPresentation(
            slides: ["index.html": TemporaryPresentation.slide()], extraFiles: [StoryContextDefinition.fileName: Self.definitionText])
        let presentation = try folder.load(id: 2)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sb-story-\(UUID().uuidString).sqlite")
        func service() throws -> StoryContextService {
            StoryContextService(
                store: StoryContextStore(database: try StoryBridgeDatabase(file: file)), library: PresentationLibrary([presentation]),
                identity: HostIdentity(), viewers: nil, logger: quietLogger())
        }
        // Two services on one database file, as serve and storybridge context are.
        let host = try service()
        let other = try service()
        func rating() async throws -> JSONValue? {
            try JSONValue.parse(try await host.pageStoryText(for: presentation))["debugAppState"]?["presentation"]?["rating"]?["value"]
        }
        #expect(try await rating() == 3)
        _ = try await host.apply([try Self.set("debugAppState.presentation.rating.value", .integer, 4)], by: .app, presentationId: 2)
        #expect(try await rating() == 4)
        _ = try await other.apply([try Self.set("debugAppState.presentation.rating.value", .integer, 5)], by: .app, presentationId: 2)
        #expect(try await rating() == 5)
        _ = try await other.store.reset(presentationId: 2, userId: HostIdentity().user.id)
        #expect(try await rating() == 3)
        let edited = Self.definitionText.replacingOccurrences(of: "\"value\": 3", with: "\"value\": 6")
        try edited.write(to: folder.root.appendingPathComponent(StoryContextDefinition.fileName), atomically: true, encoding: .utf8)
        #expect(try await rating() == 6)
    }

    @Test("the page's _story: scheme, host objects and every declared object; a content change reaches every viewer of the presentation")
    func throughTheBridge() async throws {
        let folder = try TemporaryPresentation(
            slides: ["index.html": TemporaryPresentation.slide()], extraFiles: [StoryContextDefinition.fileName: Self.definitionText])
        let presentation = try folder.load(id: 4)
        let (host, viewer) = await makeHost(presentation: presentation)
        let story = try await host.storyContext.story(presentationId: 4)
        #expect(story["scheme"]?["presentation"] == ["appMutable": false, "contentMutable": false])
        #expect(story["scheme"]?["questProgress"] == ["appMutable": true, "contentMutable": false])
        #expect(story["presentation"]?["id"] == 4)
        #expect(story["user"]?["id"] == .string(host.identity.user.id))
        #expect(story["contentNotes"] == .emptyObject)

        let other = await host.viewers.viewer(id: "viewer-2")
        await host.pageLoaded(other, presentationId: 4, slide: "index.html", pageLoad: "load-2")
        let received = Mutex<[HostEvent]>([])
        await other.attach(connection: UUID()) { event in received.withLock { $0.append(event) } }
        let response = try #require(
            await host.bridge.handle(
                BridgeRequest(
                    command: "storybridge.storyChanges",
                    data: [
                        "changes": [
                            [
                                "op": "set", "objectName": "debugAppState", "keyPath": "presentation.rating.value", "type": "integer",
                                "value": 4,
                            ],
                            ["op": "set", "objectName": "questProgress", "keyPath": "state", "type": "string", "value": "Hacked"],
                        ]
                    ], guid: "G"), context: host.context(for: viewer)))
        #expect(response.data["applied"] == 1)
        #expect(response.data["refused"]?.arrayValue?.first?["index"] == 1)
        let events = received.withLock { $0 }.filter { $0.name == StoryContextService.changeEvent }
        #expect(events.count == 1)
        #expect(events.first?.data["story"]?["debugAppState"]?["presentation"]?["rating"]?["value"] == 4)
        #expect(events.first?.data["story"]?["questProgress"]?["state"] == "Success")
    }
}
