import Foundation
import StoryBridge
import StoryBridgeContentServer
import StoryBridgeSync
import Testing

@Suite("Downloads: a size other than the declared one, and a package republished mid-download", .serialized)
struct PackageIntegrityTests {
    /// Changes the server's built package of presentation `id` in place.
    func alterServedPackage(_ lab: SyncLab, id: Int, _ change: (FileHandle, UInt64) throws -> Void) async throws {
        let file = try await lab.serverPackage(id: id)
        let handle = try FileHandle(forUpdating: file)
        let size = try handle.seekToEnd()
        try change(handle, size)
        try handle.close()
    }

    /// A front that declares the package of presentation `id` `delta` bytes larger than it is.
    static func misdeclaring(_ lab: SyncLab, id: Int, delta: Int) throws -> RewritingFront {
        try RewritingFront(
            upstream: lab.baseURL,
            rewrite: { path, object in
                var object = object
                if path == "/v1/contentpackages/\(id)", let size = object["fileSize"] as? Int {
                    object["fileSize"] = size + delta
                    return object
                }
                if path == "/v1/presentations/\(id)", var folder = object["sourcesFolder"] as? [String: Any],
                    let size = folder["fileSize"] as? Int
                {
                    folder["fileSize"] = size + delta
                    object["sourcesFolder"] = folder
                    return object
                }
                return nil
            })
    }

    @Test("a blob longer than the declared fileSize whose archive validates completely is installed, with a warning in the status")
    func longerButValid() async throws {
        let lab = try await SyncLab.serving { try $0.publish(id: 5, title: "five", payloadBytes: 60_000) }
        let front = try Self.misdeclaring(lab, id: 5, delta: -1000)
        try await lab.loginAsService(api: front.baseURL)
        let run = try await lab.cli(["sync", "--content"])
        #expect(run.status == 0, "\(run.errors)")
        let declared = try #require(try await lab.catalog()[5]?.packageSize)
        #expect(run.output.contains("presentation 5 installed with a warning: the package is \(declared + 1000) bytes"))
        #expect(try lab.installedTitle(5) == "five")
        let row = try #require(try await lab.catalog()[5])
        #expect(row.state == .ready)
        #expect(row.warning?.contains("the service declared \(declared)") == true)
        #expect(try await lab.cli(["sync", "--status"]).output.contains("ready (warning: the package is"))
        #expect(lab.leftoverDownloads().isEmpty)
        await front.stop()
        await lab.stopServer()
    }

    @Test("a blob whose size differs from the declared one and whose archive does not validate is refused; nothing installed or left")
    func differentAndBrokenRefused() async throws {
        let lab = try await SyncLab.serving { try $0.publish(id: 5, payloadBytes: 60_000) }
        let front = try Self.misdeclaring(lab, id: 5, delta: 5000)
        try await lab.loginAsService(api: front.baseURL)
        #expect(try await lab.cli(["sync"]).status == 0)
        let declared = try #require(try await lab.catalog()[5]?.packageSize)
        // The end of the archive (its central directory's last record) is gone: cut short.
        try await alterServedPackage(lab, id: 5) { handle, size in
            try handle.seek(toOffset: size - 22)
            try handle.write(contentsOf: Data(repeating: 0, count: 22))
        }
        let run = try await lab.cli(["sync", "--content"])
        #expect(run.status == 65, "\(run.output) \(run.errors)")
        #expect(run.errors.contains("the package of presentation 5 is \(declared - 5000) bytes, the server declared \(declared): refused"))
        #expect(try lab.clientLibrary().entry(id: 5) == nil)
        #expect(try await lab.catalog()[5]?.state == .failed)
        #expect(lab.leftoverDownloads().isEmpty)
        await front.stop()
        await lab.stopServer()
    }

    @Test("a link renewed after the package was republished restarts the download: the old bytes are discarded, not spliced")
    func republishedDuringDownload() async throws {
        let lab = try await SyncLab.loggedIn(linkLifetime: 1) { try $0.publish(id: 5, payloadBytes: 200_000) }
        #expect(try await lab.cli(["sync"]).status == 0)
        let service = try lab.service()
        let old = try #require(try await service.api.contentPackage(presentationId: 5))
        let partial = PartialDownload(folder: SyncPaths(lab.clientDirectory).downloads, presentationId: 5, revision: old.revision)
        // Half of the old blob is on disk, resumable, when its link expires and the package is republished.
        let half = try Data(contentsOf: try await lab.serverPackage(id: 5)).prefix(Int(old.fileSize / 2))
        try FileManager.default.createDirectory(at: partial.partFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try half.write(to: partial.partFile)
        let validator: [String: Any] = [
            "blobId": old.blobId ?? "", "revision": old.revision, "expectedSize": old.fileSize, "etag": "\"stale\"",
        ]
        try JSONSerialization.data(withJSONObject: validator).write(to: partial.validatorFile)
        try await Task.sleep(for: .milliseconds(2200))
        let republished = try await lab.server!.republish(5)
        let api = service.api
        let blob = ResumableDownloader.Blob(
            presentationId: 5, blobId: old.blobId, revision: old.revision, expectedSize: old.fileSize, link: try #require(old.sas),
            freshLink: { () async throws(SyncError) -> ResumableDownloader.RenewedLink in
                let fresh = try await api.contentPackage(presentationId: 5)
                return .init(link: fresh?.sas ?? "", revision: fresh?.revision ?? 0, blobId: fresh?.blobId, size: fresh?.fileSize ?? 0)
            })
        await #expect(throws: SyncError.packageChanged(presentationId: 5)) {
            _ = try await ResumableDownloader(logger: service.logger).download(blob, into: partial) { _ in }
        }
        #expect(!FileManager.default.fileExists(atPath: partial.partFile.path))
        // The content sync starts over with the new package and installs it.
        let report = try await service.syncContent(ids: [5], events: { _ in })
        #expect(report.failed.isEmpty, "\(report.failed.map(\.error))")
        #expect(try await lab.catalog()[5]?.installedRevision == republished.revision)
        await service.shutdown()
        await lab.stopServer()
    }
}
