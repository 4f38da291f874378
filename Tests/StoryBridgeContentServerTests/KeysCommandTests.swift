import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

/// `storybridge content-server keys …` as a child process over a lab's data folder.
@Suite("Content server: keys commands")
struct KeysCommandTests {
    /// Runs `storybridge ARGUMENTS`; its exit status and standard output and error together.
    private func storybridge(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await runStorybridgeToExit(arguments)
    }

    private func keys(_ lab: ContentLab, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await storybridge(["content-server", "keys"] + arguments + ["--data-dir", lab.directory.root.path])
    }

    /// The Base64 line of a private key file.
    private func secret(of path: String) throws -> String {
        String(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")[1])
    }

    /// Every file under `folder` whose bytes hold `text` or the raw bytes it encodes.
    private func files(under folder: URL, holding base64: String) -> [String] {
        let raw = Data(base64Encoded: base64)!
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        var found: [String] = []
        while let file = enumerator?.nextObject() as? URL {
            guard let bytes = try? Data(contentsOf: file) else { continue }
            if bytes.range(of: Data(base64.utf8)) != nil || bytes.range(of: raw) != nil { found.append(file.path) }
        }
        return found
    }

    @Test("init writes the root's private key only to --root-out; the data folder gets root.pub.json, keys.json and a signing key")
    func initialise() async throws {
        let lab = try ContentLab()
        try lab.install(id: 4)
        let rootOut = lab.folder.appendingPathComponent("offline/root.key").path
        try FileManager.default.createDirectory(
            atPath: lab.folder.appendingPathComponent("offline").path, withIntermediateDirectories: true)
        let (status, output) = try await keys(lab, ["init", "--root-out", rootOut])
        #expect(status == 0, "\(output)")
        let trust = ContentTrustFolder(dataDirectory: lab.directory)
        let root = try TrustKeyFile.readPrivateKey(at: rootOut)
        #expect(output.contains(root.keyId))
        #expect(output.contains(trust.rootPublicKey.path))
        #expect((try FileManager.default.attributesOfItem(atPath: rootOut)[.posixPermissions] as? Int) == 0o600)
        #expect((try FileManager.default.attributesOfItem(atPath: trust.root.path)[.posixPermissions] as? Int) == 0o700)
        // The root's private key is nowhere in the data folder, neither as Base64 nor as raw bytes.
        #expect(files(under: lab.directory.root, holding: try secret(of: rootOut)).isEmpty)
        #expect(!output.contains(try secret(of: rootOut)))
        // The keys document is version 1, signed by the root root.pub.json names, with one signing key kept online.
        let pinned = try TrustKeyFile.readPublicKey(at: trust.rootPublicKey.path)
        #expect(pinned == root.publicKey)
        let document = try SignedKeysDocument.parse(Data(contentsOf: trust.keysDocument))
        try document.verify(pinnedRoot: pinned)
        #expect(document.body.version == 1)
        let signing = try #require(document.body.signingKeys.first?.key)
        #expect(document.body.signingKeys.count == 1)
        let signingFile = trust.signingKey(signing.keyId).path
        #expect(try TrustKeyFile.readPrivateKey(at: signingFile).publicKey == signing)
        #expect(!output.contains(try secret(of: signingFile)))

        // Again: refused (78) whatever --root-out says; an existing --root-out is refused (73).
        let again = try await keys(lab, ["init", "--root-out", lab.folder.appendingPathComponent("offline/other.key").path])
        #expect(again.status == 78, "\(again.output)")
        #expect(again.output.contains("orphan every kiosk"))
        #expect(!FileManager.default.fileExists(atPath: lab.folder.appendingPathComponent("offline/other.key").path))
        let other = try ContentLab()
        let exists = try await keys(other, ["init", "--root-out", rootOut])
        #expect(exists.status == 73, "\(exists.output)")
        #expect(!ContentTrustFolder(dataDirectory: other.directory).signs)
        #expect(try TrustKeyFile.readPrivateKey(at: rootOut).keyId == root.keyId)
    }

    @Test("add-signing and revoke each raise the version; revoke deletes the key; status lists them without key bytes")
    func addRevokeStatus() async throws {
        let lab = try ContentLab()
        let rootOut = lab.folder.appendingPathComponent("root.key").path
        #expect(try await keys(lab, ["init", "--root-out", rootOut]).status == 0)
        let trust = ContentTrustFolder(dataDirectory: lab.directory)
        let first = try #require(trust.readKeys().body.signingKeys.first?.key.keyId)

        let added = try await keys(lab, ["add-signing", "--root", rootOut])
        #expect(added.status == 0, "\(added.output)")
        #expect(added.output.contains("version 2"))
        let second = try #require(trust.readKeys().body.signingKeys.last?.key.keyId)
        #expect(second != first)

        // Offline: a key made elsewhere, added by its public key only.
        let offlineKey = lab.folder.appendingPathComponent("offline-signing.key").path
        let made = try await storybridge(["content-server", "keys", "new-signing", "--out", offlineKey])
        #expect(made.status == 0, "\(made.output)")
        let publicFile = lab.folder.appendingPathComponent("offline-signing.pub.json").path
        #expect(made.output.contains(publicFile))
        #expect(try await storybridge(["content-server", "keys", "new-signing", "--out", offlineKey]).status == 73)
        let offline = try await keys(lab, ["add-signing", "--root", rootOut, "--offline", "--public", publicFile])
        #expect(offline.status == 0, "\(offline.output)")
        #expect(offline.output.contains("version 3"))
        let offlineId = try TrustKeyFile.readPublicKey(at: publicFile).keyId
        #expect(!trust.onlineKeyIds().contains(offlineId))

        let revoked = try await keys(lab, ["revoke", first, "--root", rootOut, "--reason", "laptop lost"])
        #expect(revoked.status == 0, "\(revoked.output)")
        #expect(!FileManager.default.fileExists(atPath: trust.signingKey(first).path))
        let document = try trust.readKeys()
        try document.verify(pinnedRoot: TrustKeyFile.readPublicKey(at: trust.rootPublicKey.path))
        #expect(document.body.version == 4)
        #expect(document.body.revoked.map(\.keyId) == [first])
        #expect(document.body.revoked.first?.reason == "laptop lost")
        #expect(document.body.signingKeys.map(\.key.keyId) == [second, offlineId])

        let status = try await keys(lab, ["status", "--json"])
        #expect(status.status == 0, "\(status.output)")
        let json = try JSONValue.parse(status.output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(json["version"]?.intValue == 4)
        #expect(json["signingKeys"]?.arrayValue?.compactMap { $0["online"] } == [.bool(true), .bool(false)])
        #expect(json["revoked"]?.arrayValue?.first?["keyId"]?.stringValue == first)
        let text = try await keys(lab, ["status"])
        #expect(text.output.contains("Keys document version 4"))
        #expect(text.output.contains("\(second) since"))
        for keyFile in [rootOut, offlineKey, trust.signingKey(second).path] {
            #expect(!status.output.contains(try secret(of: keyFile)))
            #expect(!text.output.contains(try secret(of: keyFile)))
        }
    }

    @Test("revoke of an unknown key is 65; another root is 78; a root readable by others is 78 with chmod; no keys yet is 78")
    func refusals() async throws {
        let lab = try ContentLab()
        #expect(try await keys(lab, ["status"]).status == 78)
        let rootOut = lab.folder.appendingPathComponent("root.key").path
        #expect(try await keys(lab, ["init", "--root-out", rootOut]).status == 0)
        let unknown = try await keys(lab, ["revoke", String(repeating: "ab", count: 16), "--root", rootOut, "--reason", "x"])
        #expect(unknown.status == 65, "\(unknown.output)")
        let impostor = lab.folder.appendingPathComponent("impostor.key").path
        try TrustKeyFile.writePrivateKey(TrustPrivateKey(), to: impostor)
        let wrong = try await keys(lab, ["add-signing", "--root", impostor])
        #expect(wrong.status == 78, "\(wrong.output)")
        #expect(wrong.output.contains("is not this server's root key"))
        chmod(rootOut, 0o644)
        let exposed = try await keys(lab, ["add-signing", "--root", rootOut])
        #expect(exposed.status == 78, "\(exposed.output)")
        #expect(exposed.output.contains("\(rootOut) is readable by others (mode 0644); `chmod 600 \(rootOut)`"))
        #expect(try ContentTrustFolder(dataDirectory: lab.directory).readKeys().body.version == 1)
    }

    @Test(
        "keys sign on the signing machine: bodies from unsigned/ signed with the offline key are served once copied into manifests/; a key not listed or revoked (78), a body that is not a manifest (65) or no body (66) writes nothing"
    )
    func offlineSign() async throws {
        let lab = try ContentLab()
        try lab.install(id: 6)
        let rootOut = lab.folder.appendingPathComponent("root.key").path
        #expect(try await keys(lab, ["init", "--root-out", rootOut, "--offline"]).status == 0)
        let signingKey = lab.folder.appendingPathComponent("machine/signing.key").path
        try FileManager.default.createDirectory(
            atPath: lab.folder.appendingPathComponent("machine").path, withIntermediateDirectories: true)
        #expect(try await storybridge(["content-server", "keys", "new-signing", "--out", signingKey]).status == 0)
        let publicFile = ContentServerKeys.publicKeyFile(for: signingKey)
        #expect(try await keys(lab, ["add-signing", "--root", rootOut, "--offline", "--public", publicFile]).status == 0)
        let trust = ContentTrustFolder(dataDirectory: lab.directory)
        // What the operator carries to the signing machine: the bodies and the keys document.
        let carried = lab.folder.appendingPathComponent("machine/in")
        let keysCopy = lab.folder.appendingPathComponent("machine/keys.json")
        let out = lab.folder.appendingPathComponent("machine/out")
        func sign(key: String = signingKey, input: URL = carried) async throws -> (status: Int32, output: String) {
            try await storybridge([
                "content-server", "keys", "sign", "--key", key, "--in", input.path, "--out", out.path, "--keys", keysCopy.path,
            ])
        }
        func written() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? [] }

        try await lab.withServer { client in
            let token = try await client.serviceToken()
            #expect(try await client.get("/v1/contentpackages/6/manifest", token: token).status == 503)
            try FileManager.default.copyItem(at: trust.unsigned, to: carried)
            try FileManager.default.copyItem(at: trust.keysDocument, to: keysCopy)

            // Refusals first: nothing is written by any of them.
            let strangerKey = lab.folder.appendingPathComponent("machine/stranger.key").path
            #expect(try await storybridge(["content-server", "keys", "new-signing", "--out", strangerKey]).status == 0)
            let stranger = try await sign(key: strangerKey)
            #expect(
                stranger.status == 78 && stranger.output.contains("is not a signing key of keys document version 2"), "\(stranger.output)")
            let empty = lab.folder.appendingPathComponent("machine/empty")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let none = try await sign(input: empty)
            #expect(none.status == 66 && none.output.contains("holds no manifest body"), "\(none.output)")
            let mixed = lab.folder.appendingPathComponent("machine/mixed")
            try FileManager.default.copyItem(at: carried, to: mixed)
            try Data(#"{"signed": {"kind": "something else"}, "signatures": []}"#.utf8).write(to: mixed.appendingPathComponent("0-r1.json"))
            let notManifest = try await sign(input: mixed)
            #expect(notManifest.status == 65 && notManifest.output.contains("0-r1.json cannot be signed"), "\(notManifest.output)")
            let stale = lab.folder.appendingPathComponent("machine/stale")
            try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: true)
            var expired = try SignedManifest.parse(Data(contentsOf: carried.appendingPathComponent("1-r1.json"))).body
            expired.created = Date(timeIntervalSince1970: 1_700_000_000)
            expired.expires = Date(timeIntervalSince1970: 1_700_086_400)
            try SignedManifest(body: expired).encoded().write(to: stale.appendingPathComponent("1-r1.json"))
            let old = try await sign(input: stale)
            #expect(old.status == 65 && old.output.contains("it expired on 2023-11-15"), "\(old.output)")
            #expect(written().isEmpty)

            // Signed under the keys document's version, copied into manifests/: served as it is.
            let signed = try await sign()
            #expect(signed.status == 0, "\(signed.output)")
            #expect(signed.output.contains("Signed 1 manifest with key") && signed.output.contains("under keys document version 2"))
            #expect(written() == ["1-r1.json"])
            #expect(!signed.output.contains(try secret(of: signingKey)))
            let file = out.appendingPathComponent("1-r1.json")
            let manifest = try SignedManifest.parse(Data(contentsOf: file))
            let document = try SignedKeysDocument.parse(Data(contentsOf: keysCopy))
            #expect(try manifest.verify(keys: document.body).keyId == (try TrustKeyFile.readPublicKey(at: publicFile).keyId))
            try FileManager.default.createDirectory(at: trust.manifests, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: file, to: trust.manifests.appendingPathComponent("1-r1.json"))
            let served = try await client.get("/v1/contentpackages/6/manifest", token: token)
            #expect(served.status == 200)
            #expect(served.body == (try Data(contentsOf: file)))
        }

        // Once the key is revoked, the signing machine's copy of the new keys document refuses it.
        let keyId = try TrustKeyFile.readPublicKey(at: publicFile).keyId
        #expect(try await keys(lab, ["revoke", keyId, "--root", rootOut, "--reason", "laptop lost"]).status == 0)
        try FileManager.default.removeItem(at: keysCopy)
        try FileManager.default.copyItem(at: trust.keysDocument, to: keysCopy)
        try FileManager.default.removeItem(at: out)
        let revoked = try await sign()
        #expect(revoked.status == 78 && revoked.output.contains("is revoked in keys document version 3"), "\(revoked.output)")
        #expect(written().isEmpty)
    }
}
