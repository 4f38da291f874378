import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@Suite("The client script's URL and caching")
struct ClientScriptCachingTests {
    @Test("slides load client.js from a URL naming its version, cached for good; any other URL of it is revalidated")
    func versionedClient() async throws {
        try await withHost { host in
            let html = String(decoding: try await httpGet(host.slideURL()).body, as: UTF8.self)
            let match = try #require(html.firstMatch(of: /<script src="(\/__storybridge\/client\.js\?v=[0-9a-f]{16})"/))
            let onDisk = try Data(contentsOf: repositoryRoot.appendingPathComponent("js/client.js"))

            let versioned = try await httpGet(host.baseURL + String(match.1))
            #expect(versioned.status == 200)
            #expect(versioned.headers["cache-control"] == "public, max-age=31536000, immutable")
            #expect(versioned.body == onDisk)

            for other in ["/__storybridge/client.js", "/__storybridge/client.js?v=0000000000000000"] {
                let answer = try await httpGet(host.baseURL + other)
                #expect(answer.status == 200)
                #expect(answer.headers["cache-control"] == "no-cache")
                #expect(answer.body == onDisk)
            }
        }
    }

    @Test("client.js names its source map; the map is an identity map of the file served, on the ignore list")
    func clientSourceMap() async throws {
        try await withHost { host in
            let script = String(decoding: try await httpGet(host.baseURL + "/__storybridge/client.js").body, as: UTF8.self)
            #expect(script.hasSuffix("//# sourceMappingURL=client.js.map\n"))
            let answer = try await httpGet(host.baseURL + "/__storybridge/client.js.map")
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"]?.hasPrefix("application/json") == true)
            let map = try JSONValue.parse(String(decoding: answer.body, as: UTF8.self))
            #expect(map["version"] == 3)
            #expect(map["file"] == "client.js")
            #expect(map["sources"] == ["client.js"])
            #expect(map["sourcesContent"] == [.string(script)])
            #expect(map["x_google_ignoreList"] == [0])
            #expect(map["ignoreList"] == [0])
            let lines = script.split(separator: "\n", omittingEmptySubsequences: false).count
            let segments = map["mappings"]?.stringValue?.split(separator: ";", omittingEmptySubsequences: false) ?? []
            #expect(segments.count == lines)
            #expect(segments.first == "AAAA")
            #expect(segments.dropFirst().allSatisfy { $0 == "AACA" })
        }
    }
}
