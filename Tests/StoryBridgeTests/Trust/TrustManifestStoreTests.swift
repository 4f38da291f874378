import Foundation
import GRDB
import Testing

@testable import StoryBridge

/// Migration `v21-trust-manifests`: a manifest's text kept once per hash in `trustManifest`, the
/// `packageTrust` rows naming it (docs/design/TRUST.md 2.7).
@Suite("Manifest texts stored by hash (migration v21-trust-manifests)")
struct TrustManifestStoreTests {
    private func library() throws -> (URL, StoryBridgeDatabase) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-trust-manifests-\(UUID().uuidString)")
        let directory = DataDirectory(folder)
        try directory.prepare()
        return (folder, try StoryBridgeDatabase(file: directory.database))
    }

    private func record(_ text: String, hash: String, presentationId: Int = 4) -> TrustRecord {
        let body = PackageManifest(
            presentationId: presentationId, presentationRevision: 2, packageId: 40, packageRevision: 3, created: Date(),
            expires: nil, keysVersion: nil, files: [], isLocal: true)
        return TrustRecord(presentationId: presentationId, signed: false, manifestHash: hash, manifest: text, keyId: nil, body: body)
    }

    private func texts(_ database: StoryBridgeDatabase) throws -> [String: String] {
        try database.pool.read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT hash, text FROM trustManifest").map {
                    ($0["hash"] as String, $0["text"] as String)
                })
        }
    }

    @Test("v21 moves each row's text into trustManifest and drops the column; the rows read as before")
    func migration() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-trust-manifests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = DataDirectory(folder)
        try directory.prepare()
        // A database as the previous version left it: two revisions of one manifest, one of another.
        do {
            let pool = try DatabasePool(path: directory.database.path)
            try StoryBridgeDatabase.migrator.migrate(pool, upTo: "v20-audit-rowid")
            try pool.write { db in
                for (folder, hash, text) in [("4-a", "h1", "{\"one\":1}"), ("4-b", "h1", "{\"one\":1}"), ("5-a", "h2", "{\"two\":2}")] {
                    try db.execute(
                        sql: "INSERT INTO packageTrust (folder, presentationId, signed, manifestHash, manifest) VALUES (?, 4, 1, ?, ?)",
                        arguments: [folder, hash, text])
                }
            }
        }
        let database = try StoryBridgeDatabase(file: directory.database)
        #expect(try database.appliedMigrations().contains("v21-trust-manifests"))
        #expect(try texts(database) == ["h1": "{\"one\":1}", "h2": "{\"two\":2}"])
        let (columns, second, third) = try database.pool.read { db in
            (
                try db.columns(in: "packageTrust").map(\.name), try InstalledTrust.read(db, folder: "4-b")?.manifest,
                try InstalledTrust.read(db, folder: "5-a")?.manifest
            )
        }
        #expect(!columns.contains("manifest"))
        #expect(second == "{\"one\":1}")
        #expect(third == "{\"two\":2}")
    }

    @Test("a text goes with the last row that names it, by deletion or by a re-signed manifest; one named by none is swept")
    func release() throws {
        let (folder, database) = try library()
        defer { try? FileManager.default.removeItem(at: folder) }
        try database.pool.write { db in
            try record("first", hash: "h1").write(db, folder: "4-a")
            try record("first", hash: "h1").write(db, folder: "4-b")
            try record("second", hash: "h2").write(db, folder: "4-c")
            // Stored ahead by a sync whose install then failed: no row names it.
            try TrustRecord.storeManifest(db, text: "orphan", hash: "h9")
        }
        #expect(try texts(database) == ["h1": "first", "h2": "second", "h9": "orphan"])
        try database.pool.write { db in try db.execute(sql: "DELETE FROM packageTrust WHERE folder = '4-a'") }
        #expect(try texts(database)["h1"] == "first", "4-b still names it")
        try database.pool.write { db in try db.execute(sql: "DELETE FROM packageTrust WHERE folder = '4-b'") }
        #expect(try texts(database)["h1"] == nil)
        // A re-signed manifest of the same files replaces the text its row named.
        try database.pool.write { db in try InstalledTrust.replaceManifest(db, folder: "4-c", with: record("re-signed", hash: "h3")) }
        #expect(try texts(database) == ["h3": "re-signed", "h9": "orphan"])
        #expect(try database.pool.read { db in try InstalledTrust.read(db, folder: "4-c")?.manifest } == "re-signed")
        try InstalledTrust.sweepUnnamedManifests(database.pool)
        #expect(try texts(database) == ["h3": "re-signed"])
        // A swap whose text was stored ahead writes the row only; one that was swept meanwhile stores it again.
        try database.pool.write { db in
            try TrustRecord.storeManifest(db, text: "ahead", hash: "h4")
            try record("ahead", hash: "h4").write(db, folder: "4-d")
            try record("again", hash: "h5").write(db, folder: "4-e")
        }
        #expect(try texts(database) == ["h3": "re-signed", "h4": "ahead", "h5": "again"])
    }
}
