import Foundation
import GRDB
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import Testing

/// The lab's signing side: the server's keys, the kiosk's pinned root, the rows a signed install writes.
extension SyncLab {
    /// A lab whose server signs deck 1 (`v1`), its root pinned by the kiosk, which synced it once.
    static func signedAndSynced() async throws -> SyncLab {
        let lab = try await SyncLab.serving { try $0.publish(id: 1, title: "v1") }
        await lab.stopServer()
        _ = try await lab.signAndPin()
        try await lab.startServer()
        try await lab.loginAsService()
        let synced = try await lab.cli(["sync", "--content"])
        #expect(synced.status == 0, "\(synced.errors)")
        return lab
    }

    /// The server's trust folder.
    var serverTrust: ContentTrustFolder { ContentTrustFolder(dataDirectory: serverDirectory) }

    /// Makes the server's keys (before it starts, so every package gets a manifest) and pins its
    /// root on the kiosk; returns the path of the root's private key.
    func signAndPin() async throws -> String {
        let rootOut = folder.appendingPathComponent("root.key").path
        _ = try ContentServerKeys(folder: serverTrust).initialise(rootOut: rootOut, offline: false)
        let pinned = try await cli(["trust", "add", serverTrust.rootPublicKey.path])
        #expect(pinned.status == 0, "\(pinned.errors)")
        return rootOut
    }

    /// The `packageTrust` row of the folder presentation `id` is served from.
    func trustRow(_ id: Int) throws -> Row? {
        try clientLibrary().database.pool.read { db in
            try Row.fetchOne(
                db,
                sql:
                    """
                    SELECT packageTrust.*, trustManifest.text AS manifest FROM packageTrust
                    JOIN presentation ON presentation.folder = packageTrust.folder
                    LEFT JOIN trustManifest ON trustManifest.hash = packageTrust.manifestHash WHERE presentation.id = ?
                    """,
                arguments: [id])
        }
    }

    /// The kiosk's high-water mark of presentation `id`.
    func highWater(_ id: Int) throws -> TrustHighWater? {
        try clientLibrary().database.pool.read { db in try TrustHighWater.read(db, presentationId: id) }
    }

    /// The files of the server's manifests folder it serves (`<package>-r<revision>.json`), not the
    /// hidden `.….tmp` file of a manifest being written (``signedManifestFile(matching:)`` says why).
    static func servedManifestFiles(in manifests: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: manifests.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0.hasSuffix(".json") }.sorted().map { manifests.appendingPathComponent($0) }
    }

    /// The server's stored signed manifest of presentation revision `revision`, once it is signed.
    func signedManifestFile(presentationRevision revision: Int) async throws -> URL {
        try await signedManifestFile { $0.presentationRevision == revision }
    }

    /// The server's stored signed manifest whose body `matches`, once it is signed.
    ///
    /// Only the files the server serves (`<package>-r<revision>.json`) count: the server writes a
    /// manifest to a hidden `.….tmp` file, syncs it and renames it over the served name, and a test
    /// handed that temporary file (complete and valid for as long as the sync takes, which under
    /// load is long) edited a file the server then renamed away or never read again.
    func signedManifestFile(matching matches: @escaping (PackageManifest) -> Bool) async throws -> URL {
        let manifests = serverTrust.manifests
        var found: URL?
        try await SyncLab.waitUntil {
            found = SyncLab.servedManifestFiles(in: manifests).first { file in
                guard let bytes = try? Data(contentsOf: file), let manifest = try? SignedManifest.parse(bytes) else { return false }
                return matches(manifest.body)
            }
            return found != nil
        }
        return try #require(found)
    }

    /// Publishes revision `title` of deck 1 and waits until the server has signed its manifest;
    /// returns the manifest's file.
    @discardableResult
    func publishSigned(title: String, id: Int = 1) async throws -> URL {
        let entry = try publish(id: id, title: title)
        return try await signedManifestFile(presentationRevision: entry.presentation.revision)
    }

    /// The `packageTrust` row of `folder` (served or kept).
    func trustRecord(folder: String) throws -> InstalledTrust? {
        try clientLibrary().database.pool.read { db in try InstalledTrust.read(db, folder: folder) }
    }

    /// The hashes of the manifest texts the kiosk stores (`trustManifest`), and of those its
    /// `packageTrust` rows name.
    func storedManifests() throws -> (stored: Set<String>, named: Set<String>) {
        try clientLibrary().database.pool.read { db in
            (
                Set(try String.fetchAll(db, sql: "SELECT hash FROM trustManifest")),
                Set(try String.fetchAll(db, sql: "SELECT manifestHash FROM packageTrust"))
            )
        }
    }

    /// How many `packageTrust` rows presentation `id` has (served and kept folders).
    func trustRecordCount(presentationId id: Int) throws -> Int {
        try clientLibrary().database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM packageTrust WHERE presentationId = ?", arguments: [id]) ?? 0
        }
    }

    /// How the sessions of presentation `id` ended (`endedBy`, nil while in progress).
    func sessionEnds(presentationId id: Int) throws -> [String?] {
        try clientLibrary().database.pool.read { db in
            try String?.fetchAll(db, sql: "SELECT endedBy FROM session WHERE presentationId = ? ORDER BY created", arguments: [id])
        }
    }

    /// Deletes every `packageTrust` row (standing for revisions installed before signed packages).
    func forgetTrustRecords() throws {
        try clientLibrary().database.pool.write { db in try db.execute(sql: "DELETE FROM packageTrust") }
    }

    /// Sets the stored validity of the `packageTrust` row of `folder` (standing for time passing:
    /// a kiosk cannot wait out a manifest's days).
    func setTrustValidity(folder: String, created: Date, expires: Date) throws {
        try clientLibrary().database.pool.write { db in
            try db.execute(
                sql: "UPDATE packageTrust SET created = ?, expires = ? WHERE folder = ?",
                arguments: [TrustTime.format(created), TrustTime.format(expires), folder])
        }
    }

    /// The server's manifest `file` signed again by its first signing key with `change` applied to its body.
    func resign(_ file: URL, _ change: (inout PackageManifest) -> Void) throws -> SignedManifest {
        var body = try SignedManifest.parse(Data(contentsOf: file)).body
        change(&body)
        let keys = try serverTrust.readKeys().body
        let signing = try TrustKeyFile.readPrivateKey(at: serverTrust.signingKey(keys.signingKeys[0].key.keyId).path)
        let document = try SignedManifest(body: body).signed(with: signing, context: .manifest)
        try document.encoded().write(to: file)
        return document
    }
}
