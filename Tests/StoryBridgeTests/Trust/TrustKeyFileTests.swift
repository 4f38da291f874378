import Foundation
import Testing

@testable import StoryBridge

@Suite("Private and public key files")
struct TrustKeyFileTests {
    private func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sb-keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("a private key file is made 0600 with O_EXCL, reads back to the same key, and is never overwritten")
    func writesAndReads() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/signing.key"
        let key = TrustPrivateKey()
        let previousMask = umask(0)
        defer { umask(previousMask) }
        try TrustKeyFile.writePrivateKey(key, to: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("storybridge-ed25519-private-v1\n"))
        #expect(try TrustKeyFile.readPrivateKey(at: path).keyId == key.keyId)
        #expect(throws: TrustFailure.keyFileExists(path: path)) { try TrustKeyFile.writePrivateKey(TrustPrivateKey(), to: path) }
        #expect(try TrustKeyFile.readPrivateKey(at: path).keyId == key.keyId)
    }

    @Test("a private key file readable by group or others is refused, naming the path, the mode and the fix")
    func exposedRefused() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/root.key"
        try TrustKeyFile.writePrivateKey(TrustPrivateKey(), to: path)
        chmod(path, 0o644)
        #expect(throws: TrustFailure.keyFileExposed(path: path, mode: 0o644)) { _ = try TrustKeyFile.readPrivateKey(at: path) }
        #expect(
            TrustFailure.keyFileExposed(path: path, mode: 0o644).description
                == "\(path) is readable by others (mode 0644); `chmod 600 \(path)`")
        chmod(path, 0o640)
        #expect(throws: TrustFailure.keyFileExposed(path: path, mode: 0o640)) { _ = try TrustKeyFile.readPrivateKey(at: path) }
        chmod(path, 0o400)
        #expect(throws: Never.self) { _ = try TrustKeyFile.readPrivateKey(at: path) }
    }

    @Test("no key byte shows in a key's description, its debug description or a dump")
    func noKeyBytesInDescriptions() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/k.key"
        let key = TrustPrivateKey()
        try TrustKeyFile.writePrivateKey(key, to: path)
        let secret = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")[1]
        var dumped = ""
        dump(key, to: &dumped)
        for text in [String(describing: key), String(reflecting: key), dumped, "\(key)"] {
            #expect(!text.contains(secret))
            #expect(text.contains(key.keyId) || text.contains("TrustPrivateKey"))
        }
    }

    @Test("a public key file holds the key id and the key; one whose id is not its key's is refused")
    func publicKeyFiles() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = TrustPrivateKey().publicKey
        try TrustKeyFile.writePublicKey(key, to: directory + "/root.pub.json")
        #expect(try TrustKeyFile.readPublicKey(at: directory + "/root.pub.json") == key)
        let other = TrustPrivateKey().publicKey
        try Data(#"{"keyId":"\#(other.keyId)","publicKey":"\#(key.base64)"}"#.utf8).write(
            to: URL(fileURLWithPath: directory + "/bad.pub.json"))
        #expect(throws: TrustFailure.self) { _ = try TrustKeyFile.readPublicKey(at: directory + "/bad.pub.json") }
        #expect(throws: TrustFailure.self) { _ = try TrustKeyFile.readPublicKey(at: directory + "/missing.pub.json") }
    }
}
