import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

@Suite("Serving content over HTTP")
struct ContentServingTests {
    @Test("/ redirects to the start slide of the default presentation")
    func rootRedirects() async throws {
        try await withHost { host in
            let (status, headers, _) = try await httpGet(host.baseURL + "/")
            #expect((300..<400).contains(status))
            #expect(headers["location"] == "/p/1/index.html")
        }
    }

    @Test("slides get the client script injected before any content script")
    func injection() async throws {
        try await withHost { host in
            let (status, headers, body) = try await httpGet(host.slideURL(slide: "index.html"))
            #expect(status == 200)
            #expect(headers["content-type"]?.hasPrefix("text/html") == true)
            let html = String(decoding: body, as: UTF8.self)
            let client = try #require(html.range(of: "/__storybridge/client.js"))
            let content = try #require(html.range(of: "js/storyclm.js"))
            #expect(client.lowerBound < content.lowerBound)
            #expect(html.contains("data-slide=\"index.html\""))
            #expect(html.contains("data-token=\"\(host.server.token)\""))
        }
    }

    @Test("a slide whose first script comes before <head> still gets the client first")
    func injectionBeforeEarlyScript() async throws {
        let folder = try makePresentationFolder([
            "index.html": "<script>window.early = 1</script><html><head><title>x</title></head><body></body></html>"
        ])
        try await withHost(folders: [folder]) { host in
            let html = String(decoding: try await httpGet(host.slideURL()).body, as: UTF8.self)
            #expect(html.hasPrefix("<script src=\"/__storybridge/client.js?v="))
        }
    }

    @Test("files that are not root slides are served unchanged with their media type")
    func assets() async throws {
        try await withHost { host in
            let css = try await httpGet(host.baseURL + "/p/1/css/demo.css")
            #expect(css.status == 200)
            #expect(css.headers["content-type"]?.hasPrefix("text/css") == true)
            let onDisk = try Data(contentsOf: demoFolder.appendingPathComponent("css/demo.css"))
            #expect(css.body == onDisk)
            let pdf = try await httpGet(host.baseURL + "/p/1/mediafiles/brochure.pdf")
            #expect(pdf.headers["content-type"] == "application/pdf")
        }
    }

    @Test("byte ranges are honoured, for seeking in media")
    func ranges() async throws {
        try await withHost { host in
            let onDisk = try Data(contentsOf: demoFolder.appendingPathComponent("mediafiles/chime.wav"))
            let part = try await httpGet(host.baseURL + "/p/1/mediafiles/chime.wav", headers: ["Range": "bytes=4-11"])
            #expect(part.status == 206)
            #expect(part.body == onDisk[4...11])
            #expect(part.headers["content-range"] == "bytes 4-11/\(onDisk.count)")
            let bad = try await httpGet(host.baseURL + "/p/1/mediafiles/chime.wav", headers: ["Range": "bytes=999999-"])
            #expect(bad.status == 416)
            #expect(bad.headers["content-range"] == "bytes */\(onDisk.count)")
            let tail = try await httpGet(host.baseURL + "/p/1/mediafiles/chime.wav", headers: ["Range": "bytes=-10"])
            #expect(tail.status == 206)
            #expect(tail.body == onDisk.suffix(10))
            #expect(tail.headers["content-range"] == "bytes \(onDisk.count - 10)-\(onDisk.count - 1)/\(onDisk.count)")
            let long = try await httpGet(host.baseURL + "/p/1/mediafiles/chime.wav", headers: ["Range": "bytes=8-99999999"])
            #expect(long.body == onDisk[8...])
            let several = try await httpGet(host.baseURL + "/p/1/mediafiles/chime.wav", headers: ["Range": "bytes=0-1,4-5"])
            #expect(several.status == 200)
            #expect(several.body == onDisk)
        }
    }

    @Test("files carry ETag and Last-Modified; If-None-Match answers 304; If-Range with another validator gets the whole file")
    func conditionalRequests() async throws {
        try await withHost { host in
            let url = host.baseURL + "/p/1/mediafiles/chime.wav"
            let onDisk = try Data(contentsOf: demoFolder.appendingPathComponent("mediafiles/chime.wav"))
            let first = try await httpGet(url)
            let etag = try #require(first.headers["etag"])
            #expect(first.headers["last-modified"] != nil)
            #expect(first.headers["cache-control"] == "no-cache")
            let again = try await httpGet(url, headers: ["If-None-Match": etag])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
            let matching = try await httpGet(url, headers: ["Range": "bytes=0-3", "If-Range": etag])
            #expect(matching.status == 206)
            #expect(matching.body == onDisk[0...3])
            let stale = try await httpGet(url, headers: ["Range": "bytes=0-3", "If-Range": "\"another\""])
            #expect(stale.status == 200)
            #expect(stale.body == onDisk)
        }
    }

    @Test("the host's own scripts are served under the reserved path")
    func ownScripts() async throws {
        try await withHost { host in
            for name in ["client.js", "storyclm.js"] {
                let (status, headers, body) = try await httpGet(host.baseURL + "/__storybridge/\(name)")
                #expect(status == 200)
                #expect(headers["content-type"]?.hasPrefix("application/javascript") == true)
                let onDisk = try Data(contentsOf: repositoryRoot.appendingPathComponent("js/\(name)"))
                #expect(body == onDisk)
            }
        }
    }

    @Test(
        "paths that try to leave the presentation folder are refused",
        arguments: [
            "/p/1/..%2f..%2f..%2fetc%2fpasswd", "/p/1/css/..%2F..%2Findex.html", "/p/1/%2e%2e/%2e%2e/etc/passwd",
            "/p/1/css%5c..%5c..%5cetc", "/p/1/index.html%00.css",
        ])
    func traversal(path: String) async throws {
        try await withHost { host in
            let (status, _, body) = try await httpGet(host.baseURL + path)
            #expect(status == 403 || status == 404)
            #expect(!String(decoding: body, as: UTF8.self).contains("root:"))
        }
    }

    @Test("a symlink that points outside the presentation folder is refused")
    func symlinkOutside() async throws {
        let folder = try makePresentationFolder(["index.html": "<html></html>"])
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("secret.txt"), withDestinationURL: URL(fileURLWithPath: "/etc/hostname"))
        try await withHost(folders: [folder]) { host in
            let (status, _, body) = try await httpGet(host.baseURL + "/p/1/secret.txt")
            #expect(status == 403)
            #expect(String(decoding: body, as: UTF8.self).contains("leaves the presentation folder"))
        }
    }

    @Test("unknown presentations and files are 404 with a message")
    func notFound() async throws {
        try await withHost { host in
            #expect(try await httpGet(host.baseURL + "/p/99/index.html").status == 404)
            let missing = try await httpGet(host.baseURL + "/p/1/nothing.html")
            #expect(missing.status == 404)
            #expect(String(decoding: missing.body, as: UTF8.self).contains("nothing.html"))
        }
    }
}
