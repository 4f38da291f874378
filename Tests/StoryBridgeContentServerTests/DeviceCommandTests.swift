import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeTesting
import Testing

/// `storybridge content-server device …` as a child process, and the device store behind it
/// (docs/design/FLEET.md §5.2).
@Suite("Content server: fleet devices")
struct DeviceCommandTests {
    private func storybridge(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let output = Pipe()
        let errors = Pipe()
        let process = try await LaunchedProcess.launch(
            try storybridgeExecutable(), arguments: arguments, output: .pipe(output), error: .pipe(errors))
        let (out, err) = await readUntilExit(process, output: output, errors: errors)
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    private func device(_ lab: ContentLab, _ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await storybridge(["content-server", "device"] + arguments + ["--data-dir", lab.directory.root.path])
    }

    /// The token line of `add`'s output.
    private func token(in output: String) -> String? {
        output.split(separator: "\n").map(String.init).first { $0.hasPrefix("sbd_") }
    }

    /// Every file of the hub database (with its WAL and shared memory) that holds `bytes`.
    private func hubFiles(_ lab: ContentLab, holding bytes: Data) throws -> [String] {
        let folder = lab.directory.root.appendingPathComponent("content-server")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { name in
            guard name.hasPrefix("hub.sqlite"), let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
            else { return false }
            return data.range(of: bytes) != nil
        }
    }

    @Test("add prints the token once; neither the token nor its secret is anywhere in hub.sqlite, only the secret's SHA-256")
    func addKeepsNoToken() async throws {
        let lab = try ContentLab()
        let added = try await device(lab, ["add", "lobby-1", "--label", "site=berlin", "--label", "floor=1"])
        #expect(added.status == 0, "\(added.output)\(added.errors)")
        let text = try #require(token(in: added.output))
        let parsed = try #require(DeviceToken(text))
        #expect(text.count == 58)
        #expect(added.output.hasPrefix("device \(parsed.deviceId) \"lobby-1\" added; its token (shown once):\n\(text)\n"))
        let hub = HubDatabase.file(in: lab.directory)
        #expect(FileManager.default.fileExists(atPath: hub.path))
        #expect(try hubFiles(lab, holding: Data(text.utf8)).isEmpty)
        #expect(try hubFiles(lab, holding: Data(parsed.secret.utf8)).isEmpty)
        #expect(try hubFiles(lab, holding: Data(parsed.secret.prefix(16).utf8)).isEmpty)
        #expect(!(try hubFiles(lab, holding: parsed.secretHash).isEmpty), "the hash is what is kept")

        let store = DeviceStore(database: try HubDatabase(directory: lab.directory))
        guard case .valid(let found) = try store.verify(token: text) else {
            Issue.record("the new token is not valid")
            return
        }
        #expect(found.id == parsed.deviceId && found.name == "lobby-1" && found.kind == .kiosk)
        #expect(found.labels == ["site": "berlin", "floor": "1"])
        #expect(try store.verify(token: text + "\n") == .valid(found), "a file's trailing newline is ignored")
    }

    @Test("verify: a wrong secret of the same length and an unknown id are unknown, a garbled token is malformed")
    func verify() throws {
        let lab = try ContentLab()
        let store = DeviceStore(database: try HubDatabase(directory: lab.directory))
        let (_, token) = try store.add(name: "k1")
        var secret = Array(token.secret)
        secret[20] = secret[20] == "A" ? "B" : "A"
        let wrongSecret = "sbd_\(token.deviceId.dropFirst(2))_\(String(secret))"
        #expect(try store.verify(token: wrongSecret) == .unknown)
        let other = DeviceToken.generate()
        #expect(try store.verify(token: other.text) == .unknown)
        #expect(try store.verify(token: "sbd_short") == .malformed)
        #expect(try store.verify(token: "Bearer " + token.text) == .malformed)
        #expect(try store.verify(token: token.text.uppercased()) == .malformed)
        // The comparison looks at every byte: equal only when all are equal, whatever the first difference.
        let hash = token.secretHash
        #expect(ConstantTime.equal(hash, hash))
        for index in [0, 15, 31] {
            var changed = hash
            changed[index] ^= 1
            #expect(!ConstantTime.equal(hash, changed))
        }
        #expect(!ConstantTime.equal(hash, hash.prefix(31)))
    }

    @Test("revoke by name or id: the token is refused from then on; the name is free again; revoking twice is refused")
    func revoke() async throws {
        let lab = try ContentLab()
        let first = try await device(lab, ["add", "lobby-1"])
        let firstToken = try #require(token(in: first.output).flatMap(DeviceToken.init))
        let second = try await device(lab, ["add", "lobby-2"])
        let secondToken = try #require(token(in: second.output).flatMap(DeviceToken.init))

        let taken = try await device(lab, ["add", "lobby-1"])
        #expect(taken.status == 65)
        #expect(taken.errors.contains("a device named \"lobby-1\" exists already"))

        let byName = try await device(lab, ["revoke", "lobby-1"])
        #expect(byName.status == 0, "\(byName.errors)")
        #expect(byName.output == "device \(firstToken.deviceId) \"lobby-1\" revoked\n")
        let byId = try await device(lab, ["revoke", secondToken.deviceId])
        #expect(byId.status == 0, "\(byId.errors)")
        let again = try await device(lab, ["revoke", secondToken.deviceId])
        #expect(again.status == 65)
        #expect(again.errors.contains("is revoked already"))
        let unknown = try await device(lab, ["revoke", "nobody"])
        #expect(unknown.status == 65)
        #expect(unknown.errors.contains("no device has the name or id \"nobody\""))

        let store = DeviceStore(database: try HubDatabase(directory: lab.directory))
        guard case .revoked(let revoked) = try store.verify(token: firstToken.text) else {
            Issue.record("a revoked token is not refused as revoked")
            return
        }
        #expect(revoked.id == firstToken.deviceId)
        #expect(try await store.revokedIds() == [firstToken.deviceId, secondToken.deviceId])

        // The name is free again: a new device with a new id and token.
        let readded = try await device(lab, ["add", "lobby-1"])
        #expect(readded.status == 0, "\(readded.errors)")
        let newToken = try #require(token(in: readded.output).flatMap(DeviceToken.init))
        #expect(newToken.deviceId != firstToken.deviceId)
        #expect(try store.list().map(\.state) == ["revoked", "revoked", "new"])
    }

    @Test("list: a table with id, name, kind, state, since, host id and labels; --json the same as an array")
    func list() async throws {
        let lab = try ContentLab()
        let empty = try await device(lab, ["list"])
        #expect(empty.status == 0)
        #expect(empty.output.contains("No devices yet"))
        _ = try await device(lab, ["add", "lobby-1", "--label", "site=berlin"])
        _ = try await device(lab, ["add", "prometheus", "--scraper"])
        let table = try await device(lab, ["list"])
        #expect(table.status == 0, "\(table.errors)")
        let lines = table.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("ID") && lines[0].contains("NAME") && lines[0].hasSuffix("LABELS"))
        #expect(lines[1].contains("lobby-1") && lines[1].contains("kiosk") && lines[1].contains("new") && lines[1].hasSuffix("site=berlin"))
        #expect(lines[2].contains("prometheus") && lines[2].contains("scraper"))
        #expect(!table.output.contains("sbd_"))

        let json = try await device(lab, ["list", "--json"])
        #expect(json.status == 0, "\(json.errors)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(array.map { $0["name"] as? String } == ["lobby-1", "prometheus"])
        #expect(array.map { $0["kind"] as? String } == ["kiosk", "scraper"])
        #expect(array[0]["state"] as? String == "new")
        #expect((array[0]["labels"] as? [String: String]) == ["site": "berlin"])
        #expect(array[0]["id"] as? String != nil && array[0]["since"] as? String != nil)
    }

    @Test("six `device add` at once on a data folder with no hub.sqlite yet: all six added, each once")
    func concurrentFirstOpens() async throws {
        // Each first open migrates the new file; before they took turns, two at once both ran the
        // first migration and one failed ("table device already exists").
        let lab = try ContentLab()
        let names = (1...6).map { "lobby-\($0)" }
        let runs = try await withThrowingTaskGroup(of: (String, Int32, String).self) { group in
            for name in names {
                group.addTask {
                    let run = try await device(lab, ["add", name])
                    return (name, run.status, run.errors)
                }
            }
            return try await group.reduce(into: [String: (Int32, String)]()) { $0[$1.0] = ($1.1, $1.2) }
        }
        for name in names { #expect(runs[name]?.0 == 0, "\(name): \(runs[name]?.1 ?? "not run")") }
        let listed = try DeviceStore(database: try HubDatabase(directory: lab.directory)).list()
        #expect(listed.map(\.name).sorted() == names)
    }

    @Test("--token-out writes the token to a new 0600 file and prints nothing secret; an existing file is refused (73) and adds nothing")
    func tokenOut() async throws {
        let lab = try ContentLab()
        let file = lab.folder.appendingPathComponent("lobby-1.token").path
        let added = try await device(lab, ["add", "lobby-1", "--token-out", file])
        #expect(added.status == 0, "\(added.errors)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        let token = try #require(DeviceToken(text))
        #expect(!added.output.contains(token.secret))
        #expect(added.output == "device \(token.deviceId) \"lobby-1\" added; its token is in \(file) (mode 0600)\n")
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)

        let again = try await device(lab, ["add", "lobby-2", "--token-out", file])
        #expect(again.status == 73)
        #expect(again.errors.contains("--token-out \(file) exists"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == text)
        let store = DeviceStore(database: try HubDatabase(directory: lab.directory))
        #expect(try store.list().map(\.name) == ["lobby-1"])
    }

    @Test("bad names and labels are refused with 65 before anything is written")
    func badInput() async throws {
        let lab = try ContentLab()
        for (arguments, message) in [
            (["add", ""], "must be 1 to 64 printable characters"),
            (["add", String(repeating: "n", count: 65)], "must be 1 to 64 printable characters"),
            (["add", "k", "--label", "Site=x"], "the label key \"Site\""),
            (["add", "k", "--label", "site"], "\"site\" is not KEY=VALUE"),
            (["add", "k", "--label", "site=\(String(repeating: "v", count: 65))"], "longer than 64 characters"),
        ] {
            let result = try await device(lab, arguments)
            #expect(result.status == 65, "\(arguments)")
            #expect(result.errors.contains(message), "\(result.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: HubDatabase.file(in: lab.directory).path))
    }
}
