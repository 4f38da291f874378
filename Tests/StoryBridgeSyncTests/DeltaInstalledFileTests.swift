import Foundation
import StoryBridge
import StoryBridgeSync
import Testing

@Suite("Delta updates: unchanged files are linked only when the installed ones are what the index says", .serialized)
struct DeltaInstalledFileTests {
    @Test("an unchanged file altered in the installed folder: the linking stops, the whole package is downloaded, nothing is left")
    func installedFileAltered() async throws {
        let lab = try await DeltaSyncTests.syncedDeck(id: 9)
        let installed = try #require(try lab.clientLibrary().entry(id: 9)).presentation.root
        // Slide 12 is the same in both versions; its installed copy no longer has its indexed size.
        try Data("altered".utf8).write(to: installed.appendingPathComponent("slides/s12.html"))
        try DeltaSyncTests.publishDeck(lab, id: 9, version: "v2")
        let second = try await DeltaSyncTests.sync(lab)
        #expect(second.report.installed.map(\.id) == [9])
        #expect(second.report.deltaUpdates == 0)
        let reasons = second.events.compactMap { if case .deltaDeclined(9, let reason) = $0 { reason } else { nil } }
        #expect(reasons == [DeltaFallback.installedFileDiffers("slides/s12.html").description])
        try DeltaSyncTests.expectSameFiles(lab, id: 9)
        #expect(lab.leftoverDownloads().isEmpty, "\(lab.leftoverDownloads())")
        let staging = (try? FileManager.default.contentsOfDirectory(atPath: lab.clientDirectory.staging.path)) ?? []
        #expect(staging.isEmpty, "\(staging)")
        await lab.stopServer()
    }
}
