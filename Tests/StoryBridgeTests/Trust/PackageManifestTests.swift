import Foundation
import Testing

@testable import StoryBridge

@Suite("Manifests and keys documents")
struct PackageManifestTests {
    private let now = Date(timeIntervalSince1970: 1_795_000_000)

    private func manifest(files: [ManifestFile]) -> PackageManifest {
        PackageManifest(
            presentationId: 17, presentationRevision: 14, packageId: 16, packageRevision: 2, created: now,
            expires: now.addingTimeInterval(30 * 86_400), keysVersion: 3, files: files)
    }

    @Test("a manifest signs, travels as text and reads back equal, files sorted by UTF-8 bytes")
    func roundTrip() throws {
        let key = TrustPrivateKey()
        let body = manifest(files: [
            ManifestFile(path: "mediafiles/film.mp4", size: 676, sha256: String(repeating: "2c", count: 32), mediaFileId: 981_119),
            ManifestFile(path: "index.html", size: 1834, sha256: String(repeating: "9f", count: 32)),
            ManifestFile(path: "Z.html", size: 0, sha256: String(repeating: "00", count: 32)),
        ])
        #expect(body.files.map(\.path) == ["Z.html", "index.html", "mediafiles/film.mp4"])
        let text = try SignedManifest(body: body).signed(with: key, context: .manifest).encoded()
        let parsed = try SignedManifest.parse(text)
        #expect(parsed.body == body)
        #expect(try CanonicalJSON.encode(parsed.body.json) == CanonicalJSON.encode(body.json))
        let json = String(decoding: text, as: UTF8.self)
        #expect(json.contains(#""created":"2026-11-18T11:06:40Z""#))
        #expect(json.contains(#""mediaFileId":981119"#))
        #expect(json.contains(#""type":"storybridge-manifest""#))
    }

    @Test(
        "a manifest with unsorted, repeated or unsafe paths, a bad hash or a missing field is refused",
        arguments: [
            #"[{"path":"b","size":1,"sha256":"HASH"},{"path":"a","size":1,"sha256":"HASH"}]"#,
            #"[{"path":"a","size":1,"sha256":"HASH"},{"path":"a","size":1,"sha256":"HASH"}]"#,
            #"[{"path":"../a","size":1,"sha256":"HASH"}]"#,
            #"[{"path":"/a","size":1,"sha256":"HASH"}]"#,
            #"[{"path":"a/./b","size":1,"sha256":"HASH"}]"#,
            #"[{"path":"a/","size":1,"sha256":"HASH"}]"#,
            #"[{"path":"a","size":1,"sha256":"ABCD"}]"#,
            #"[{"path":"a","size":-1,"sha256":"HASH"}]"#,
            #"[{"path":"a","sha256":"HASH"}]"#,
        ])
    func refusals(files: String) throws {
        let hash = String(repeating: "ab", count: 32)
        var json = try JSONValue.parse(
            #"{"type":"storybridge-manifest","specVersion":1,"presentationId":1,"presentationRevision":1,"packageId":1,"packageRevision":1,"created":"2026-11-27T10:00:00Z","expires":"2026-12-27T10:00:00Z","keysVersion":1,"files":[]}"#
        ).objectValue!
        json["files"] = try JSONValue.parse(files.replacingOccurrences(of: "HASH", with: hash))
        #expect(throws: TrustFailure.self) { _ = try PackageManifest(json: .object(json)) }
        json["files"] = []
        #expect(throws: Never.self) { _ = try PackageManifest(json: .object(json)) }
        json["created"] = "2026-11-27T10:00:00.5Z"
        #expect(throws: TrustFailure.self) { _ = try PackageManifest(json: .object(json)) }
    }

    @Test("a keys document verifies only with the pinned root, and a revoked key's manifest is refused")
    func keysDocument() throws {
        let root = TrustPrivateKey()
        let signer = TrustPrivateKey()
        let stolen = TrustPrivateKey()
        let keys = KeysDocument(
            version: 2, created: now, expires: now.addingTimeInterval(365 * 86_400), root: root.publicKey,
            signingKeys: [KeyEntry(key: signer.publicKey, since: now), KeyEntry(key: stolen.publicKey, since: now)],
            revoked: [RevokedKey(keyId: stolen.keyId, revokedAt: now, reason: "laptop lost")])
        let document = try SignedKeysDocument.parse(SignedKeysDocument(body: keys).signed(with: root, context: .keys).encoded())
        #expect(document.body == keys)
        try document.verify(pinnedRoot: root.publicKey)
        #expect(throws: TrustFailure.self) { try document.verify(pinnedRoot: TrustPrivateKey().publicKey) }
        // Signed by a signing key instead of the root: refused even though the key is listed.
        let bySigner = try SignedKeysDocument(body: keys).signed(with: signer, context: .keys)
        #expect(throws: TrustFailure.self) { try bySigner.verify(pinnedRoot: root.publicKey) }

        let body = manifest(files: [])
        #expect(try SignedManifest(body: body).signed(with: signer, context: .manifest).verify(keys: keys) == signer.publicKey)
        // Refused by name: the revoked key, when and why.
        do {
            _ = try SignedManifest(body: body).signed(with: stolen, context: .manifest).verify(keys: keys)
            Issue.record("a manifest signed by a revoked key was accepted")
        } catch let TrustFailure.keyRevoked(keyId, _, reason) {
            #expect(keyId == stolen.keyId && reason == "laptop lost")
        }
        #expect(keys.validSigningKeys == [signer.publicKey])
    }

    @Test("a manifest's path check answers as the package's own path check for every kind of name")
    func canonicalSafePaths() {
        let names = [
            "index.html", "slides/s001/index.html", "a", "...", "a/.../b", ".hidden", "a/.b", "a..b", "C:", "C:/x", "x:",
            "ab:c", "", "/", "/abs", "a/", "a//b", "./a", "a/./b", "a/..", "../a", "a/../b", ".", "..", "a\\b", "a\u{0}b",
            String(repeating: "x", count: 255), String(repeating: "x", count: 256), "d/" + String(repeating: "y", count: 256),
            "é/ü.html", "é:", "ü/../a", "files/日本語.txt", "a/b/",
        ]
        for name in names {
            #expect(ZipArchive.isCanonicalSafePath(name) == ((try? ZipArchive.safePath(name)) == name), "\(name.debugDescription)")
        }
    }
}
