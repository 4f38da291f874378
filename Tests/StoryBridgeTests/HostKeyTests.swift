import Crypto
import Foundation
import Testing

@testable import StoryBridge

/// The host key and host id of docs/design/FLEET.md §2, on real files in a temporary folder.
@Suite("Host key")
struct HostKeyTests {
    private func temporaryDataFolder() throws -> DataDirectory {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-hostkey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return DataDirectory(root)
    }

    private func mode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    @Test("the host id of RFC 8032's first test key is the base32 of the first 16 bytes of SHA-256 of its public key")
    func knownVector() throws {
        let secret = Data(
            [
                0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a, 0xf4, 0x92, 0xec, 0x2c, 0xc4,
                0x44, 0x49, 0xc5, 0x69, 0x7b, 0x32, 0x69, 0x19, 0x70, 0x3b, 0xac, 0x03, 0x1c, 0xae, 0x7f, 0x60,
            ])
        let key = try HostKey(rawRepresentation: secret)
        #expect(key.publicKey.hexDigits == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        #expect(key.hostId == "eh7ddx5bksrgcytl7bkai36se4")
        #expect(key.hostId.count == 26)
        #expect(key.groupedHostId == "eh7dd-x5bks-rgcyt-l7bka-i36se4")
        #expect(HostKey.hostId(ofPublicKey: key.publicKey) == key.hostId)
        #expect(!String(describing: key).contains(secret.base64EncodedString()))
        #expect(String(describing: key) == "host key eh7ddx5bksrgcytl7bkai36se4")
    }

    @Test("base32 follows RFC 4648's test vectors (lower case, no padding)")
    func base32() {
        let vectors = ["": "", "f": "my", "fo": "mzxq", "foo": "mzxw6", "foob": "mzxw6yq", "fooba": "mzxw6ytb", "foobar": "mzxw6ytboi"]
        for (input, output) in vectors { #expect(Base32.lowercaseUnpadded(Array(input.utf8)) == output) }
    }

    @Test("made once with mode 0600 and 32 bytes, then read back unchanged by later starts")
    func madeOnceAndStable() throws {
        let directory = try temporaryDataFolder()
        let file = HostKey.file(in: directory)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let first = try HostKey.loadOrCreate(in: directory)
        #expect(try mode(file) == 0o600)
        #expect(try Data(contentsOf: file).count == 32)
        let second = try HostKey.loadOrCreate(in: directory)
        #expect(second.hostId == first.hostId)
        #expect(second.publicKey == first.publicKey)
        // No temporary file left beside it.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.root.path)
        #expect(names == [HostKey.fileName])
        // It signs: the signature verifies with the public key and the id is its fingerprint.
        let message = Data("storybridge-fleet-hello\nnonce\nhttp://127.0.0.1:1".utf8)
        let signature = first.signature(for: message)
        #expect(HostKey.isValidSignature(signature, of: message, publicKey: second.publicKey))
        #expect(!HostKey.isValidSignature(signature, of: Data("other".utf8), publicKey: second.publicKey))
    }

    @Test("several first starts at once agree on one key")
    func concurrentFirstStarts() async throws {
        let directory = try temporaryDataFolder()
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try HostKey.loadOrCreate(in: directory).hostId } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        #expect(try HostKey.loadOrCreate(in: directory).hostId == ids.first)
    }

    @Test("a file readable by group or others is refused, naming the file, and left as it is")
    func tooOpen() throws {
        let directory = try temporaryDataFolder()
        let key = try HostKey.loadOrCreate(in: directory)
        let file = HostKey.file(in: directory)
        #expect(chmod(file.path, 0o640) == 0)
        #expect(throws: HostKeyError.exposed(path: file.path, mode: 0o640)) { try HostKey.loadOrCreate(in: directory) }
        let message = HostKeyError.exposed(path: file.path, mode: 0o640).description
        #expect(message.contains(file.path) && message.contains("640"))
        #expect(chmod(file.path, 0o600) == 0)
        #expect(try HostKey.loadOrCreate(in: directory).hostId == key.hostId)
    }

    @Test("a file of the wrong size is refused, naming the file, and never replaced")
    func damaged() throws {
        let directory = try temporaryDataFolder()
        let file = HostKey.file(in: directory)
        let damaged = Data(repeating: 7, count: 31)
        #expect(FileManager.default.createFile(atPath: file.path, contents: damaged, attributes: [.posixPermissions: 0o600]))
        do {
            _ = try HostKey.loadOrCreate(in: directory)
            Issue.record("a 31-byte key was accepted")
        } catch {
            guard case .malformed(let path, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(path == file.path)
            #expect(reason.contains("31 bytes"))
            #expect(error.description.contains(file.path))
        }
        #expect(try Data(contentsOf: file) == damaged)
    }

    @Test("a folder or a symbolic link in the key's place is refused, naming it")
    func notAFile() throws {
        let directory = try temporaryDataFolder()
        let file = HostKey.file(in: directory)
        let elsewhere = directory.root.appendingPathComponent("elsewhere")
        #expect(FileManager.default.createFile(atPath: elsewhere.path, contents: Data(count: 32), attributes: [.posixPermissions: 0o600]))
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: elsewhere)
        #expect(throws: HostKeyError.self) { try HostKey.loadOrCreate(in: directory) }
        do {
            _ = try HostKey.loadOrCreate(in: directory)
        } catch {
            #expect(error.description.contains(file.path))
        }
    }
}
