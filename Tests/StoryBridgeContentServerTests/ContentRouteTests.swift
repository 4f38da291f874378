import Foundation
import StoryBridge
import StoryBridgeContentServer
import Testing

/// Whether `text` is a zone-less date like `2016-12-27T11:06:14.447`.
func isZonelessDate(_ value: Any?) -> Bool {
    guard let text = value as? String else { return false }
    return text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{1,7}/) != nil
}

/// Checks that `object` (parsed from the wire text, so numbers and booleans stay apart) has
/// exactly `fields` with values of the given JSON types.
func expectFields(_ object: JSONValue?, _ fields: [String: String], sourceLocation: SourceLocation = #_sourceLocation) {
    let members = object?.objectValue ?? [:]
    #expect(Set(members.keys) == Set(fields.keys), "keys", sourceLocation: sourceLocation)
    for (name, kind) in fields {
        let value = members[name]
        let matches: Bool
        switch (kind, value) {
        case ("int", .int?), ("bool", .bool?), ("string", .string?), ("string?", .string?), ("string?", .null?),
            ("array", .array?), ("object", .object?):
            matches = true
        case ("date", .string(let text)?): matches = isZonelessDate(text)
        default: matches = false
        }
        #expect(matches, "\(name) should be \(kind), is \(String(describing: value))", sourceLocation: sourceLocation)
    }
}

@Suite("Content server: content routes")
struct ContentRouteTests {
    @Test("every content route answers 401 with WWW-Authenticate: Bearer without a valid token, with or without the slash")
    func unauthorized() async throws {
        try await ContentLab.serving(decks: [1]) { lab, client, token in
            var forged = Array(token)
            forged[forged.count - 3] = forged[forged.count - 3] == "A" ? "B" : "A"
            for path in ["/v1/clients", "/v1/presentations/1", "/v1/contentpackages/1", "/v1/mediafiles/1", "/v1/slides/1"] {
                for variant in [path, path + "/"] {
                    for bearer in [nil, "not-a-jwt", String(forged)] {
                        let reply = try await client.get(variant, token: bearer)
                        #expect(reply.status == 401, "\(variant) with \(bearer ?? "no token")")
                        #expect(reply.header("www-authenticate")?.hasPrefix("Bearer") == true)
                        #expect(try reply.object()["error"] is String)
                    }
                }
            }
            let basic = try await client.get("/v1/clients", headers: ["Authorization": "Basic Zm9vOmJhcg=="])
            #expect(basic.status == 401)
        }
    }

    @Test("GET /v1/clients and /v1/clients/: the same array, presentations with id, revision, skip, debug, lockout")
    func clients() async throws {
        try await ContentLab.serving(decks: [1, 2]) { lab, client, token in
            let plain = try await client.get("/v1/clients", token: token)
            let slashed = try await client.get("/v1/clients/", token: token)
            #expect(plain.status == 200 && slashed.status == 200)
            #expect(plain.body == slashed.body)
            #expect(plain.header("content-type")?.hasPrefix("application/json") == true)
            let clients = try plain.array()
            #expect(clients.count == 1)
            let first = try #require(clients.first)
            let wire = try plain.json().arrayValue?.first
            expectFields(
                wire,
                [
                    "id": "int", "name": "string", "lockoutEnabled": "bool", "shortDescription": "string?",
                    "longDescription": "string?", "thumbImgId": "string?", "imgId": "string?", "url": "string?", "email": "string?",
                    "created": "date", "updated": "date", "presentations": "array", "users": "array", "groups": "array",
                    "tables": "array", "deviceLogTable": "string?", "baseStatisticsTable": "string?", "geolocationTable": "string?",
                ])
            #expect(first["id"] as? Int == 7)
            #expect(first["name"] as? String == "Kiosks")
            let stubs = try #require(first["presentations"] as? [[String: Any]])
            #expect(stubs.map { $0["id"] as? Int } == [1, 2])
            for stub in wire?["presentations"]?.arrayValue ?? [] {
                expectFields(stub, ["id": "int", "revision": "int", "skip": "bool", "debug": "bool", "lockout": "bool"])
                #expect(stub["revision"]?.intValue == 1)
            }
        }
    }

    @Test("GET /v1/presentations/{id}: every field with its type; sourcesFolder's size is the served zip's")
    func presentation() async throws {
        try await ContentLab.serving(decks: [3]) { lab, client, token in
            let reply = try await client.get("/v1/presentations/3", token: token)
            #expect(reply.status == 200)
            #expect(try await client.get("/v1/presentations/3/", token: token).body == reply.body)
            let object = try reply.object()
            let wire = try reply.json()
            expectFields(
                wire,
                [
                    "id": "int", "name": "string", "shortDescription": "string?", "longDescription": "string?",
                    "thumbImgId": "string?", "imgId": "string?", "order": "int", "revision": "int", "created": "date",
                    "updated": "date", "clientId": "int", "debugModeEnabled": "bool", "skip": "bool", "mapEnabled": "bool",
                    "mapType": "int", "needConfirmation": "bool", "previewMode": "int", "map": "string?", "visibility": "bool",
                    "sourcesFolder": "object", "mediaFiles": "array", "slides": "array", "presentations": "array", "users": "array",
                ])
            #expect(object["name"] as? String == "Deck 3")
            #expect(object["clientId"] as? Int == 7)
            #expect(object["visibility"] as? Bool == true)
            let folder = try #require(object["sourcesFolder"] as? [String: Any])
            expectFields(
                wire["sourcesFolder"],
                [
                    "id": "int", "blobId": "string", "fileSize": "int", "mimeType": "string", "revision": "int", "created": "date",
                    "updated": "date",
                ])
            #expect(folder["mimeType"] as? String == "application/zip")
            #expect((folder["blobId"] as? String)?.wholeMatch(of: /[0-9a-f]{64}/) != nil)
            #expect(folder["fileSize"] as? Int == (try cachedPackage(lab, id: 3, revision: 1)).count)
            let media = try #require(object["mediaFiles"] as? [[String: Any]])
            #expect(media.count == 1)
            for item in wire["mediaFiles"]?.arrayValue ?? [] { expectFields(item, ["id": "int", "revision": "int", "fileSize": "int"]) }
            #expect(media.first?["fileSize"] as? Int == 3000)
            let slides = try #require(object["slides"] as? [[String: Any]])
            #expect(slides.count == 2)
            for item in wire["slides"]?.arrayValue ?? [] { expectFields(item, ["id": "int", "revision": "int"]) }

            // Ids are stable: the same on the next request.
            let again = try await client.get("/v1/presentations/3", token: token).object()
            #expect((again["slides"] as? [[String: Any]])?.map { $0["id"] as? Int } == slides.map { $0["id"] as? Int })
        }
    }

    @Test("GET /v1/contentpackages/{id}: the sourcesFolder fields plus a sas link on this server")
    func contentPackage() async throws {
        try await ContentLab.serving(decks: [1]) { lab, client, token in
            let reply = try await client.get("/v1/contentpackages/1/", token: token)
            #expect(reply.status == 200)
            let object = try reply.object()
            expectFields(
                try reply.json(),
                [
                    "id": "int", "blobId": "string", "fileSize": "int", "mimeType": "string", "revision": "int", "created": "date",
                    "updated": "date", "sas": "string",
                ])
            let sas = try #require(object["sas"] as? String)
            #expect(sas.hasPrefix(client.baseURL + "/blobs/packages/"))
            #expect(sas.contains("exp=") && sas.contains("sig="))
            let presentation = try await client.get("/v1/presentations/1", token: token).object()
            let folder = try #require(presentation["sourcesFolder"] as? [String: Any])
            for key in ["id", "blobId", "fileSize", "revision"] {
                #expect("\(object[key]!)" == "\(folder[key]!)", "\(key)")
            }
        }
    }

    @Test("GET /v1/mediafiles/{id} and /v1/slides/{id}: their fields; the sas serves the file; pageSource is the HTML")
    func mediaAndSlides() async throws {
        try await ContentLab.serving(decks: [1]) { lab, client, token in
            let presentation = try await client.get("/v1/presentations/1", token: token).object()
            let mediaId = try #require((presentation["mediaFiles"] as? [[String: Any]])?.first?["id"] as? Int)
            let media = try await client.get("/v1/mediafiles/\(mediaId)/", token: token)
            #expect(media.status == 200)
            let mediaObject = try media.object()
            expectFields(
                try media.json(),
                [
                    "id": "int", "revision": "int", "fileName": "string", "title": "string", "blobId": "string",
                    "fileSize": "int", "mimeType": "string", "created": "date", "updated": "date",
                    "isAvailableForSharing": "bool", "sas": "string",
                ])
            #expect(mediaObject["fileName"] as? String == "film.mp4")
            #expect(mediaObject["mimeType"] as? String == "video/mp4")
            let file = try await client.get(try #require(mediaObject["sas"] as? String))
            #expect(file.status == 200)
            #expect(file.body == Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }))
            #expect(file.header("etag")?.hasPrefix("\"") == true)

            let slides = try #require(presentation["slides"] as? [[String: Any]])
            var names: [String] = []
            for stub in slides {
                let slideId = try #require(stub["id"] as? Int)
                let reply = try await client.get("/v1/slides/\(slideId)", token: token)
                #expect(reply.status == 200)
                let slide = try reply.object()
                expectFields(
                    try reply.json(),
                    [
                        "id": "int", "revision": "int", "name": "string", "pageSource": "string", "linkedSlides": "string",
                        "swipeNext": "string?", "swipePrevious": "string?", "created": "date", "updated": "date",
                    ])
                let name = try #require(slide["name"] as? String)
                names.append(name)
                let pageSource = try #require(slide["pageSource"] as? String)
                let html = try #require(Data(base64Encoded: pageSource))
                let entry = try lab.library.entry(id: 1)
                let root = try #require(entry).presentation.root
                let installed = try Data(contentsOf: root.appendingPathComponent(name))
                #expect(html == installed)
                if name == "index.html" {
                    #expect(slide["linkedSlides"] as? String == "b.html")
                    #expect(slide["swipeNext"] as? String == "b.html")
                }
            }
            #expect(names.sorted() == ["b.html", "index.html"])
        }
    }

    @Test("unknown ids answer 404 with a JSON error, on every route")
    func notFound() async throws {
        try await ContentLab.serving(decks: [1]) { lab, client, token in
            for path in [
                "/v1/presentations/99", "/v1/contentpackages/99/", "/v1/mediafiles/12345", "/v1/slides/12345/", "/v1/presentations/abc",
            ] {
                let reply = try await client.get(path, token: token)
                #expect(reply.status == 404, "\(path)")
                #expect(try reply.object()["error"] is String)
            }
        }
    }

    @Test("a config groups presentations into clients with their flags; unlisted or uninstalled ones are not served")
    func configuredClients() async throws {
        let lab = try ContentLab()
        for id in [1, 2, 3] { try lab.install(id: id) }
        let file = lab.folder.appendingPathComponent("content-server.json")
        try Data(
            """
            {"clients": [
               {"id": 10, "name": "Cardiology", "presentations": [1, {"id": 2, "skip": true, "debug": true, "lockout": true,
                                                                     "visibility": false, "needConfirmation": true, "mapEnabled": true}]},
               {"id": 11, "name": "Empty", "presentations": [{"id": 42}]}],
             "services": [{"clientId": "\(ContentLab.serviceId)", "clientSecret": "\(ContentLab.serviceSecret)"}]}
            """.utf8
        ).write(to: file)
        let accounts = try ContentServerAccounts.load(from: file)
        try await lab.withServer(lab.configuration(accounts: accounts)) { client in
            let token = try await client.serviceToken()
            let clients = try await client.get("/v1/clients", token: token).array()
            #expect(clients.map { $0["id"] as? Int } == [10, 11])
            let cardiology = try #require(clients.first?["presentations"] as? [[String: Any]])
            #expect(cardiology.map { $0["id"] as? Int } == [1, 2])
            #expect(cardiology[1]["skip"] as? Bool == true)
            #expect(cardiology[1]["debug"] as? Bool == true)
            #expect(cardiology[1]["lockout"] as? Bool == true)
            #expect((clients[1]["presentations"] as? [Any])?.isEmpty == true)
            let two = try await client.get("/v1/presentations/2", token: token).object()
            #expect(two["clientId"] as? Int == 10)
            #expect(two["visibility"] as? Bool == false)
            #expect(two["needConfirmation"] as? Bool == true)
            #expect(two["mapEnabled"] as? Bool == true)
            #expect(two["debugModeEnabled"] as? Bool == true)
            #expect(try await client.get("/v1/presentations/3", token: token).status == 404)
        }
    }

    @Test("a bad config file is refused naming the problem")
    func badConfig() throws {
        let lab = try ContentLab()
        let file = lab.folder.appendingPathComponent("bad.json")
        try Data(#"{"clients": [{"id": 1, "name": "A", "presentations": ["x"]}], "services": []}"#.utf8).write(to: file)
        #expect(throws: ContentServerSetupError.self) { try ContentServerAccounts.load(from: file) }
        do {
            _ = try ContentServerAccounts.load(from: file)
        } catch {
            #expect(error.description.contains("clients[0].presentations[0]"))
        }
        try Data(
            #"{"clients": [{"id": 1, "name": "A", "presentations": [1, 1]}], "services": [{"clientId": "a", "clientSecret": "b"}]}"#.utf8
        )
        .write(to: file)
        do {
            _ = try ContentServerAccounts.load(from: file)
            Issue.record("a duplicate presentation was accepted")
        } catch {
            #expect(error.description.contains("presentation 1 appears twice"))
        }
    }

    @Test("reinstalling a presentation into the data folder shows its new revision without a restart")
    func revisionBump() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1, title: "first")
        try await lab.withRunningServer { client, running in
            let token = try await client.serviceToken()
            let oldLink = try await client.packageLink(1, token: token)
            let oldZip = try await client.get(oldLink).body
            try lab.install(id: 1, title: "second edition")
            try await running.waitForPackages()
            let stub = try #require(
                (try await client.get("/v1/clients", token: token).array().first?["presentations"] as? [[String: Any]])?.first)
            #expect(stub["revision"] as? Int == 2)
            let presentation = try await client.get("/v1/presentations/1", token: token).object()
            #expect(presentation["revision"] as? Int == 2)
            #expect((presentation["sourcesFolder"] as? [String: Any])?["revision"] as? Int == 2)
            let newLink = try await client.packageLink(1, token: token)
            #expect(newLink != oldLink)
            let newZip = try await client.get(newLink)
            #expect(newZip.status == 200)
            #expect(newZip.body != oldZip)
            #expect(newZip.body == (try cachedPackage(lab, id: 1, revision: 2)))
            // The old revision's link no longer serves anything.
            #expect(try await client.get(oldLink).status == 404)
        }
    }
}
