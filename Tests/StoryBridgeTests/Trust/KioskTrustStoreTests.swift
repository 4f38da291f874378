import Foundation
import GRDB
import Testing

@testable import StoryBridge

@Suite("Kiosk trust store and migration v15-trust")
struct KioskTrustStoreTests {
    private func dataFolder() throws -> (URL, DataDirectory) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-kiosk-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder, DataDirectory(folder.appendingPathComponent("data")))
    }

    private func rootFile(in folder: URL, _ key: TrustPublicKey) throws -> String {
        let path = folder.appendingPathComponent("root-\(key.keyId.prefix(6)).pub.json").path
        if !FileManager.default.fileExists(atPath: path) { try TrustKeyFile.writePublicKey(key, to: path) }
        return path
    }

    @Test("a root is pinned once; the same again changes nothing; a different one needs replace, which drops the held keys")
    func pinning() throws {
        let (folder, directory) = try dataFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = KioskTrustStore(directory: directory)
        #expect(try store.pinnedRoot() == nil)
        let first = TrustPrivateKey()
        let second = TrustPrivateKey()
        #expect(try store.pin(rootAt: rootFile(in: folder, first.publicKey), replace: false).outcome == .pinned)
        #expect(try store.pinnedRoot() == first.publicKey)
        #expect((try FileManager.default.attributesOfItem(atPath: store.folder.path)[.posixPermissions] as? Int) == 0o700)
        #expect(try store.pin(rootAt: rootFile(in: folder, first.publicKey), replace: false).outcome == .unchanged)

        let now = Date()
        let keys = try SignedKeysDocument(
            body: KeysDocument(
                version: 1, created: now, expires: now.addingTimeInterval(86_400), root: first.publicKey, signingKeys: [], revoked: [])
        ).signed(with: first, context: .keys)
        try store.hold(keys)
        #expect(try store.heldKeys(root: first.publicKey)?.body.version == 1)
        #expect(throws: TrustFailure.self) { _ = try store.heldKeys(root: second.publicKey) }

        let other = try rootFile(in: folder, second.publicKey)
        #expect(throws: KioskTrustError.differentRootPinned(current: first.keyId, offered: second.keyId)) {
            _ = try store.pin(rootAt: other, replace: false)
        }
        #expect(KioskTrustError.differentRootPinned(current: first.keyId, offered: second.keyId).exitStatus == 78)
        #expect(try store.pinnedRoot() == first.publicKey)
        #expect(try store.pin(rootAt: other, replace: true).outcome == .replaced(previous: first.keyId))
        #expect(try store.pinnedRoot() == second.publicKey)
        #expect(!FileManager.default.fileExists(atPath: store.keysFile.path))
        #expect(throws: KioskTrustError.self) { _ = try store.pin(rootAt: folder.appendingPathComponent("none.json").path, replace: true) }
    }

    @Test("trust.rootFile wins over the data folder's root, and trust add refuses with a hint naming it")
    func configuredRootFileWins() throws {
        let (folder, directory) = try dataFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inFolder = TrustPrivateKey().publicKey
        let configured = TrustPrivateKey().publicKey
        _ = try KioskTrustStore(directory: directory).pin(rootAt: rootFile(in: folder, inFolder), replace: false)
        let configuredPath = try rootFile(in: folder, configured)
        let store = KioskTrustStore(directory: directory, rootFile: configuredPath)
        #expect(try store.pinnedRoot() == configured)
        #expect(throws: KioskTrustError.configuredRootFile(configuredPath)) {
            _ = try store.pin(rootAt: rootFile(in: folder, TrustPrivateKey().publicKey), replace: true)
        }
        #expect(KioskTrustError.configuredRootFile(configuredPath).description.contains("trust.rootFile"))
        let missing = KioskTrustStore(directory: directory, rootFile: folder.appendingPathComponent("gone.json").path)
        #expect(throws: TrustFailure.self) { _ = try missing.pinnedRoot() }
        let parsed = try JSONDecoder().decode(
            HostConfiguration.self, from: Data(#"{"trust": {"rootFile": "/etc/storybridge/root.pub.json", "requireSigned": true}}"#.utf8))
        #expect(parsed.trust == TrustSettings(rootFile: "/etc/storybridge/root.pub.json", requireSigned: true))
    }

    @Test("v15-trust applies to a database of the previous schema with rows in it, keeping them")
    func migration() throws {
        let (folder, directory) = try dataFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try directory.prepare()
        // A database as the previous version left it: every migration up to v14, with a presentation.
        do {
            let pool = try DatabasePool(path: directory.database.path)
            try StoryBridgeDatabase.migrator.migrate(pool, upTo: "v14-catalog-dialect")
            try pool.write { db in
                try db.execute(
                    sql: "INSERT INTO presentation (id, name, folder, installedAt) VALUES (17, 'Deck', '17-r3', '2026-11-27 10:00:00')")
            }
            #expect(try pool.read { try $0.tableExists("packageTrust") } == false)
        }
        let database = try StoryBridgeDatabase(file: directory.database)
        // v15-trust runs right after v14 (later migrations, such as v16-oce-state, follow it).
        let applied = try database.appliedMigrations()
        #expect(applied.firstIndex(of: "v15-trust") == applied.firstIndex(of: "v14-catalog-dialect").map { $0 + 1 })
        try database.pool.write { db in
            #expect(try String.fetchOne(db, sql: "SELECT name FROM presentation WHERE id = 17") == "Deck")
            try db.execute(
                sql: "INSERT INTO packageTrust (folder, presentationId, signed, manifestHash) VALUES ('17-r3', 17, 0, 'h')")
            #expect(try String.fetchOne(db, sql: "SELECT state FROM packageTrust WHERE folder = '17-r3'") == "verified")
            try db.execute(sql: "INSERT INTO trustHighWater (presentationId, presentationRevision) VALUES (17, 3)")
            #expect(try Int.fetchOne(db, sql: "SELECT presentationRevision FROM trustHighWater") == 3)
        }
    }
}
