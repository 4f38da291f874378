import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import Testing

/// A content server whose packages leave the media files out (`mediaFilesOutsidePackages`): the
/// real CLI fetches each from `/v1/mediafiles/{id}` and its `sas` link, resumably and size-checked,
/// and installs it into the presentation's `mediafiles/`.
@Suite("Media files outside the package", .serialized)
struct MediaFileSyncTests {
    static let filmBytes = 600_000

    func film(_ title: String, id: Int = 5) -> Data {
        var generator = SeededBytes(seed: UInt64(id) &* 2_654_435_761 &+ UInt64(title.utf8.count))
        return generator.bytes(Self.filmBytes)
    }

    func installedFilm(_ lab: SyncLab, id: Int = 5) throws -> Data {
        let entry = try #require(try lab.clientLibrary().entry(id: id))
        return try Data(contentsOf: entry.presentation.root.appendingPathComponent("mediafiles/film.mp4"))
    }

    func serverPackageSize(_ lab: SyncLab, id: Int = 5) async throws -> Int64 {
        let zip = try await lab.serverPackage(id: id, mediaOutsidePackages: true)
        return ((try? FileManager.default.attributesOfItem(atPath: zip.path))?[.size] as? NSNumber)?.int64Value ?? -1
    }

    /// A logged-in lab whose server keeps media outside the packages and has deck 5 with a film of
    /// ``filmBytes``.
    static func labWithFilm() async throws -> SyncLab {
        try await SyncLab.loggedIn(mediaOutsidePackages: true) { lab in
            try lab.publish(id: 5, title: "five", payloadBytes: filmBytes)
        }
    }

    @Test("The package leaves the film out; sync --content fetches it from /v1/mediafiles and installs it whole")
    func fetchedSeparately() async throws {
        let lab = try await Self.labWithFilm()
        defer { withExtendedLifetime(lab) {} }
        let result = try await lab.cli(["sync", "--content"])
        #expect(result.status == 0, "\(result.errors)")
        let packageSize = try await serverPackageSize(lab)
        #expect(packageSize > 0 && packageSize < 10_000, "the package still carries the film (\(packageSize) bytes)")
        #expect(try installedFilm(lab) == film("five"))
        #expect(try lab.installedTitle(5) == "five")
        #expect(try await lab.catalog()[5]?.state == .ready)
        #expect(lab.leftoverDownloads().isEmpty)
        // A second sync downloads nothing.
        let again = try await lab.cli(["sync", "--content"])
        #expect(again.status == 0)
        #expect(again.output.contains("0 installed, 1 up to date"), "\(again.output)")
        await lab.stopServer()
    }

    @Test("A media download cut every 150 KB resumes with Range until the file is whole")
    func resumed() async throws {
        let lab = try await Self.labWithFilm()
        defer { withExtendedLifetime(lab) {} }
        #expect(try await lab.cli(["sync"]).status == 0)
        // The package (a few KB) passes whole; the film is cut after every 150 KB.
        try await lab.startServer(faults: TestFaults(dropAfterBytes: 150_000), mediaOutsidePackages: true)
        let result = try await lab.cli(["sync", "--content"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try installedFilm(lab) == film("five"))
        #expect(lab.leftoverDownloads().isEmpty)
        await lab.stopServer()
    }

    @Test("An updated film (new revision) replaces the old one; the old revision is served until then")
    func updated() async throws {
        let lab = try await Self.labWithFilm()
        defer { withExtendedLifetime(lab) {} }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        try lab.publish(id: 5, title: "five v2", payloadBytes: Self.filmBytes)
        let result = try await lab.cli(["sync", "--content"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try lab.installedTitle(5) == "five v2")
        #expect(try installedFilm(lab) == film("five v2"))
        await lab.stopServer()
    }
}
