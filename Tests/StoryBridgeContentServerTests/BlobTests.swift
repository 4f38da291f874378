import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

@Suite("Content server: package blobs")
struct BlobTests {
    @Test("a full GET is the zip: Content-Length, strong ETag, Last-Modified, Accept-Ranges; it unpacks to the installed files")
    func fullDownload() async throws {
        try await ContentLab.serving(decks: [1], mediaBytes: 200_000) { lab, client, token in
            let reply = try await client.get(try await client.packageLink(1, token: token))
            #expect(reply.status == 200)
            #expect(reply.body == (try cachedPackage(lab, id: 1, revision: 1)))
            #expect(reply.header("content-length") == String(reply.body.count))
            #expect(reply.header("content-type") == "application/zip")
            #expect(reply.header("accept-ranges") == "bytes")
            let etag = try #require(reply.header("etag"))
            #expect(etag.wholeMatch(of: /"[0-9a-f]{64}"/) != nil)
            #expect(reply.header("last-modified")?.hasSuffix("GMT") == true)

            let zip = lab.folder.appendingPathComponent("downloaded.zip")
            try reply.body.write(to: zip)
            let unpacked = lab.folder.appendingPathComponent("unpacked")
            let result = try PackageExtractor().extract(zip: zip, to: unpacked)
            #expect(result.files == 4)
            let entry = try lab.library.entry(id: 1)
            let installed = try #require(entry).presentation.root
            for path in ["index.html", "b.html", "css/site.css", "mediafiles/film.mp4"] {
                #expect(
                    try Data(contentsOf: unpacked.appendingPathComponent(path)) == Data(contentsOf: installed.appendingPathComponent(path)),
                    "\(path)")
            }
        }
    }

    @Test("HEAD answers the headers of GET without a body")
    func head() async throws {
        try await ContentLab.serving(decks: [1]) { lab, client, token in
            let link = try await client.packageLink(1, token: token)
            let reply = try await client.send("HEAD", link)
            #expect(reply.status == 200)
            #expect(reply.body.isEmpty)
            #expect(reply.header("content-length") == String(try cachedPackage(lab, id: 1, revision: 1).count))
            #expect(reply.header("etag") != nil)
        }
    }

    @Test("Range → 206 with Content-Range; suffix and open ranges; past the end → 416 with bytes */size")
    func ranges() async throws {
        try await ContentLab.serving(decks: [1], mediaBytes: 50_000) { lab, client, token in
            let link = try await client.packageLink(1, token: token)
            let zip = try cachedPackage(lab, id: 1, revision: 1)
            let size = zip.count

            let middle = try await client.get(link, headers: ["Range": "bytes=100-1099"])
            #expect(middle.status == 206)
            #expect(middle.body == zip.subdata(in: 100..<1100))
            #expect(middle.header("content-range") == "bytes 100-1099/\(size)")
            #expect(middle.header("content-length") == "1000")

            let open = try await client.get(link, headers: ["Range": "bytes=\(size - 10)-"])
            #expect(open.status == 206)
            #expect(open.body == zip.suffix(10))

            let suffix = try await client.get(link, headers: ["Range": "bytes=-25"])
            #expect(suffix.status == 206)
            #expect(suffix.body == zip.suffix(25))
            #expect(suffix.header("content-range") == "bytes \(size - 25)-\(size - 1)/\(size)")

            let clamped = try await client.get(link, headers: ["Range": "bytes=\(size - 5)-\(size + 1000)"])
            #expect(clamped.status == 206)
            #expect(clamped.body == zip.suffix(5))

            let unsatisfiable = try await client.get(link, headers: ["Range": "bytes=\(size)-"])
            #expect(unsatisfiable.status == 416)
            #expect(unsatisfiable.header("content-range") == "bytes */\(size)")

            // Several ranges are not honoured: the whole blob comes back.
            let multiple = try await client.get(link, headers: ["Range": "bytes=0-1,5-6"])
            #expect(multiple.status == 200)
            #expect(multiple.body == zip)
        }
    }

    @Test("If-Range: the current ETag or date honours the range; another validator gets the whole blob with 200")
    func ifRange() async throws {
        try await ContentLab.serving(decks: [1]) { lab, client, token in
            let link = try await client.packageLink(1, token: token)
            let full = try await client.get(link)
            let etag = try #require(full.header("etag"))
            let lastModified = try #require(full.header("last-modified"))

            let matching = try await client.get(link, headers: ["Range": "bytes=10-19", "If-Range": etag])
            #expect(matching.status == 206)
            #expect(matching.body == full.body.subdata(in: 10..<20))
            let byDate = try await client.get(link, headers: ["Range": "bytes=10-19", "If-Range": lastModified])
            #expect(byDate.status == 206)

            for stale in ["\"0000\"", "W/\(etag)", "Mon, 01 Jan 2001 00:00:00 GMT"] {
                let reply = try await client.get(link, headers: ["Range": "bytes=10-19", "If-Range": stale])
                #expect(reply.status == 200, "\(stale)")
                #expect(reply.body == full.body)
            }
        }
    }

    @Test("the ETag is strong and stable across requests and restarts (the package is built once)")
    func stableETag() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1)
        let first = try await lab.withServer { client in
            let link = try await client.packageLink(1, token: try await client.serviceToken())
            let one = try await client.send("HEAD", link).header("etag")
            let two = try await client.send("HEAD", link).header("etag")
            #expect(one == two)
            return one
        }
        let packageFile = lab.directory.root.appendingPathComponent("content-server/packages/1-r1.zip")
        let builtAt = try FileManager.default.attributesOfItem(atPath: packageFile.path)[.modificationDate] as? Date
        let second = try await lab.withServer { client in
            try await client.send("HEAD", try await client.packageLink(1, token: try await client.serviceToken())).header("etag")
        }
        #expect(first != nil && first == second)
        #expect(try FileManager.default.attributesOfItem(atPath: packageFile.path)[.modificationDate] as? Date == builtAt)
    }

    @Test("a link with a bad or missing signature, or for another blob, answers 403; no Authorization is needed")
    func badSignature() async throws {
        try await ContentLab.serving(decks: [1, 2]) { lab, client, token in
            let link = try await client.packageLink(1, token: token)
            let other = try await client.packageLink(2, token: token)
            let signature = try #require(link.split(separator: "sig=").last)
            let flipped = String(signature.prefix(1) == "0" ? "1" : "0") + signature.dropFirst()
            let bad = [
                link.replacingOccurrences(of: "sig=\(signature)", with: "sig=\(flipped)"),
                String(link.split(separator: "?")[0]),
                other.replacingOccurrences(of: "/2-r1.zip", with: "/1-r1.zip"),
                link.replacingOccurrences(of: "exp=", with: "exp=1"),
            ]
            for variant in bad {
                let reply = try await client.get(variant)
                #expect(reply.status == 403, "\(variant)")
                #expect(try reply.object()["error"] is String)
            }
            #expect(try await client.get(link).status == 200)
        }
    }

    @Test("--test-link-lifetime: a link expires after its lifetime (403), and a fresh one works")
    func linkExpiry() async throws {
        let lab = try ContentLab()
        try lab.install(id: 1)
        let clock = ManualHostClock(start: Date())
        try await lab.withServer(lab.configuration(linkLifetime: 5, clock: clock)) { client in
            let token = try await client.serviceToken()
            let link = try await client.packageLink(1, token: token)
            #expect(try await client.send("HEAD", link).status == 200)
            clock.advance(by: .seconds(6))
            let expired = try await client.get(link)
            #expect(expired.status == 403)
            #expect(try expired.object()["error"] as? String == "the link has expired")
            #expect(try await client.get(try await client.packageLink(1, token: token)).status == 200)
        }
    }
}
