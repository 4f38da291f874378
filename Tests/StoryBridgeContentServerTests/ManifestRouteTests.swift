import Crypto
import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

/// The signed manifests, the keys route and the `manifest` link of a real content server on loopback.
@Suite("Content server: manifests and keys")
struct ManifestRouteTests {
    /// `keys init` in-process (the command's own code), the root written beside the data folder.
    @discardableResult
    private func initialiseKeys(_ lab: ContentLab, offline: Bool = false) throws -> String {
        let rootOut = lab.folder.appendingPathComponent("root-\(UUID().uuidString.prefix(6)).key").path
        _ = try ContentServerKeys(folder: ContentTrustFolder(dataDirectory: lab.directory)).initialise(rootOut: rootOut, offline: offline)
        return rootOut
    }

    private func keys(_ lab: ContentLab) throws -> KeysDocument {
        try ContentTrustFolder(dataDirectory: lab.directory).readKeys().body
    }

    @Test("a built package's manifest lists its zip's files and the media files outside it, signed by the server's key")
    func manifestMatchesThePackage() async throws {
        let lab = try ContentLab()
        try lab.install(id: 3, mediaBytes: 5000)
        try initialiseKeys(lab)
        var configuration = lab.configuration()
        configuration.mediaFilesOutsidePackages = true
        try await lab.withServer(configuration) { client in
            let token = try await client.serviceToken()
            let package = try await client.get("/v1/contentpackages/3", token: token).object()
            let link = try #require(package["manifest"] as? String)
            let revision = try #require(package["revision"] as? Int)
            #expect(link == "\(client.baseURL)/v1/contentpackages/3/manifest?packageRevision=\(revision)")
            let presentation = try await client.get("/v1/presentations/3", token: token).object()
            #expect((presentation["sourcesFolder"] as? [String: Any])?["manifest"] as? String == link)

            let reply = try await client.get(link, token: token)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.header("content-type") == "application/json")
            let manifest = try SignedManifest.parse(reply.body)
            let signer = try manifest.verify(keys: keys(lab))
            #expect(try keys(lab).signingKeys.map(\.key) == [signer])
            #expect(manifest.body.presentationId == 3)
            #expect(manifest.body.presentationRevision == 1)
            #expect(manifest.body.packageId == package["id"] as? Int)
            #expect(manifest.body.packageRevision == revision)
            #expect(manifest.body.expires == manifest.body.created.addingTimeInterval(30 * 86_400))

            // The zip's files, unpacked and hashed, are the manifest's, but the film outside it.
            let zip = try await client.get(try #require(package["sas"] as? String))
            let zipFile = lab.folder.appendingPathComponent("fetched.zip")
            try zip.body.write(to: zipFile)
            let unpacked = lab.folder.appendingPathComponent("unpacked")
            _ = try PackageExtractor().extract(zip: zipFile, to: unpacked)
            let inZip = try await TreeHasher().hash(tree: unpacked)
            let film = try #require(manifest.body.files.first { $0.path == "mediafiles/film.mp4" })
            #expect(
                manifest.body.files.filter { $0.path != film.path }.map { ManifestFile(path: $0.path, size: $0.size, sha256: $0.sha256) }
                    == inZip)
            #expect(!inZip.contains { $0.path == film.path })
            // The film: its media file id as the presentation lists it, its bytes as /v1/mediafiles serves them.
            let mediaId = try #require((presentation["mediaFiles"] as? [[String: Any]])?.first?["id"] as? Int)
            #expect(film.mediaFileId == mediaId)
            let media = try await client.get("/v1/mediafiles/\(mediaId)", token: token).object()
            let filmBytes = try await client.get(try #require(media["sas"] as? String)).body
            #expect(film.size == Int64(filmBytes.count))
            #expect(film.sha256 == SHA256.hash(data: filmBytes).map { String(format: "%02x", $0) }.joined())
        }
    }

    @Test("an unsigned server's answers carry no manifest field and equal, byte for byte, a signed server's without it")
    func unsignedAnswersUnchanged() async throws {
        let lab = try ContentLab()
        try lab.install(id: 5)
        let clock = ManualHostClock(start: Date(timeIntervalSince1970: 1_795_000_000))
        let configuration = lab.configuration(clock: clock)
        let paths = ["/v1/contentpackages/5", "/v1/presentations/5", "/v1/clients"]
        let unsigned = try await lab.withServer(configuration) { client in
            let token = try await client.serviceToken()
            #expect(try await client.get("/v1/trust/keys").status == 404)
            #expect(try await client.get("/v1/trust/keys").object()["error"] as? String == "this server signs nothing")
            #expect(try await client.get("/v1/contentpackages/5/manifest", token: token).status == 404)
            var bodies: [String] = []
            for path in paths { bodies.append(try await client.get(path, token: token).text) }
            return bodies
        }
        for body in unsigned { #expect(!body.contains("manifest"), "\(body)") }

        try initialiseKeys(lab)
        let signed = try await lab.withServer(configuration) { client in
            let token = try await client.serviceToken()
            var bodies: [String] = []
            for path in paths { bodies.append(try await client.get(path, token: token).text) }
            return bodies.map { body in
                // The same port is not guaranteed: compare without the base URL of links.
                body.replacing(/,"manifest":"[^"]*"/, with: "")
            }
        }
        let withoutBase = { (text: String) in
            text.replacing(/http:\\\/\\\/127\.0\.0\.1:\d+/, with: "BASE").replacing(/http:\/\/127\.0\.0\.1:\d+/, with: "BASE")
        }
        #expect(signed.map(withoutBase) == unsigned.map(withoutBase))
        #expect(signed.count == 3)
    }

    @Test("the keys document needs no token; the manifest route answers 401 without one and 404 for another revision")
    func keysRouteAndRefusals() async throws {
        let lab = try ContentLab()
        try lab.install(id: 8)
        try initialiseKeys(lab)
        try await lab.withServer { client in
            let keysReply = try await client.get("/v1/trust/keys")
            #expect(keysReply.status == 200)
            #expect(keysReply.body == (try Data(contentsOf: ContentTrustFolder(dataDirectory: lab.directory).keysDocument)))
            let pinned = try TrustKeyFile.readPublicKey(at: ContentTrustFolder(dataDirectory: lab.directory).rootPublicKey.path)
            try SignedKeysDocument.parse(keysReply.body).verify(pinnedRoot: pinned)

            #expect(try await client.get("/v1/contentpackages/8/manifest").status == 401)
            let token = try await client.serviceToken()
            #expect(try await client.get("/v1/contentpackages/8/manifest", token: token).status == 200)
            #expect(try await client.get("/v1/contentpackages/8/manifest?packageRevision=1", token: token).status == 200)
            let old = try await client.get("/v1/contentpackages/8/manifest?packageRevision=7", token: token)
            #expect(old.status == 404)
            #expect(try old.object()["error"] as? String == "revision 7 of package 1 is not served; the current revision is 1")
            #expect(try await client.get("/v1/contentpackages/9/manifest", token: token).status == 404)
        }
    }

    @Test(
        "a manifest known to verify is answered again unverified only while its bytes are the same: one byte edited in place right after is refused"
    )
    func verifiedBytesOnly() async throws {
        let lab = try ContentLab()
        try lab.install(id: 5)
        try initialiseKeys(lab)
        let file = ContentTrustFolder(dataDirectory: lab.directory).manifests.appendingPathComponent("1-r1.json")
        try await lab.withServer { client in
            let token = try await client.serviceToken()
            let first = try await client.get("/v1/contentpackages/5/manifest", token: token)
            #expect(first.status == 200)
            #expect(try await client.get("/v1/contentpackages/5/manifest", token: token).body == first.body)
            // The same size, the same inode, within the same tick of the file's times: only its
            // bytes tell it from the one answered.
            var edited = try Data(contentsOf: file)
            let digit = try #require(edited.lastRange(of: Data(#""sha256":""#.utf8))).upperBound
            edited[digit] = edited[digit] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            let handle = try FileHandle(forWritingTo: file)
            try handle.write(contentsOf: edited)
            try handle.close()
            let refused = try await client.get("/v1/contentpackages/5/manifest", token: token)
            #expect(refused.status == 503)
            // Put back byte for byte: it verifies again and is answered.
            let restore = try FileHandle(forWritingTo: file)
            try restore.write(contentsOf: first.body)
            try restore.close()
            #expect(try await client.get("/v1/contentpackages/5/manifest", token: token).body == first.body)
        }
    }

    @Test("offline signing: 503 awaiting the signature until a signed file is dropped in; a wrongly signed one is refused")
    func offlineSigning() async throws {
        let lab = try ContentLab()
        try lab.install(id: 6)
        let rootOut = try initialiseKeys(lab, offline: true)
        let trust = ContentTrustFolder(dataDirectory: lab.directory)
        let offlineKey = lab.folder.appendingPathComponent("signing.key").path
        let made = try ContentServerKeys.newSigningKey(out: offlineKey)
        _ = try ContentServerKeys(folder: trust).addSigningKey(rootPath: rootOut, publicKeyFile: made.publicKeyFile)
        try await lab.withServer { client in
            let token = try await client.serviceToken()
            let waiting = try await client.get("/v1/contentpackages/6/manifest", token: token)
            #expect(waiting.status == 503)
            #expect(waiting.header("retry-after") == "60")
            #expect(try waiting.object()["error"] as? String == "the manifest of package 1 revision 1 awaits its signature")
            let body = try SignedManifest.parse(Data(contentsOf: trust.unsigned.appendingPathComponent("1-r1.json")))
            #expect(body.signatures.isEmpty)
            #expect(body.body.keysVersion == 2)

            // Signed by a key the keys document does not list: never served.
            let stranger = try body.signed(with: TrustPrivateKey(), context: .manifest)
            try FileManager.default.createDirectory(at: trust.manifests, withIntermediateDirectories: true)
            try stranger.encoded().write(to: trust.manifests.appendingPathComponent("1-r1.json"))
            #expect(try await client.get("/v1/contentpackages/6/manifest", token: token).status == 503)

            // Signed on the signing machine with the listed key: served as it is.
            let signed = try body.signed(with: TrustKeyFile.readPrivateKey(at: offlineKey), context: .manifest).encoded()
            try signed.write(to: trust.manifests.appendingPathComponent("1-r1.json"))
            let served = try await client.get("/v1/contentpackages/6/manifest", token: token)
            #expect(served.status == 200)
            #expect(served.body == signed)
        }
    }

    @Test("a manifest is re-signed once less than a third of its lifetime is left: same files, new times")
    func resigning() async throws {
        let lab = try ContentLab()
        try lab.install(id: 2)
        let rootOut = try initialiseKeys(lab)
        let clock = ManualHostClock(start: Date())
        var configuration = lab.configuration(tokenLifetime: 400 * 86_400, clock: clock)
        configuration.manifestResignInterval = .seconds(100 * 365 * 86_400)
        try await lab.withRunningServer(configuration) { client, running in
            let token = try await client.serviceToken()
            let first = try SignedManifest.parse(try await client.get("/v1/contentpackages/2/manifest", token: token).body)
            clock.advance(by: .seconds(19 * 86_400))
            #expect(try await running.resignManifests() == [])
            clock.advance(by: .seconds(2 * 86_400))
            #expect(try await running.resignManifests() == ["1-r1.json"])
            let second = try SignedManifest.parse(try await client.get("/v1/contentpackages/2/manifest", token: token).body)
            try second.verify(keys: keys(lab))
            #expect(second.body.files == first.body.files)
            #expect(second.body.packageRevision == first.body.packageRevision)
            #expect(second.body.created.timeIntervalSince(first.body.created) >= 21 * 86_400 - 1)
            #expect(second.body.expires == second.body.created.addingTimeInterval(30 * 86_400))
            #expect(try await running.resignManifests() == [])

            // Its key revoked (a second key added first): the next pass re-signs it with the remaining key.
            let trust = ContentTrustFolder(dataDirectory: lab.directory)
            let revokedId = try #require(second.signatures.first?.keyId)
            let operations = ContentServerKeys(folder: trust)
            let added = try operations.addSigningKey(rootPath: rootOut, publicKeyFile: nil)
            _ = try operations.revoke(keyId: revokedId, rootPath: rootOut, reason: "laptop lost")
            #expect(try await client.get("/v1/contentpackages/2/manifest", token: token).status == 503)
            #expect(try await running.resignManifests() == ["1-r1.json"])
            let third = try SignedManifest.parse(try await client.get("/v1/contentpackages/2/manifest", token: token).body)
            #expect(try third.verify(keys: keys(lab)).keyId == added.keyId)
            #expect(third.body.keysVersion == 3)
            #expect(third.body.files == first.body.files)
        }
    }
}
