import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// Kept revisions of a Veeva deck installed by hand: `diff`, `shots --revision` and `rollback`
/// read them as Veeva's, as they were installed (real CLI, real zips, real headless Chromium).
@Suite("Kept revisions of a Veeva deck")
struct DialectRevisionTests {
    @Test(
        "a delivery folder installed twice: diff of revisions 1 and 2 finds every key message unchanged; rollback serves 1 as Veeva's, in order"
    )
    func diffAndRollback() async throws {
        let lab = try SyncLab()
        let delivery = lab.folder.appendingPathComponent("delivery")
        try VeevaDeliveryFixture.writeZips(in: delivery)
        for _ in 0..<2 {
            let installed = try await lab.cli(["install", delivery.path, "--id", "5"])
            #expect(installed.status == 0, "\(installed.errors)")
        }
        #expect(try lab.clientLibrary().keptRevisions(id: 5).map(\.revision) == [1])
        #expect(try lab.clientLibrary().keptRevisions(id: 5).first?.dialect == .veeva)

        let report = lab.folder.appendingPathComponent("report.html")
        let diff = try await lab.cli(["diff", "5", "--from", "1", "--to", "2", "--size", "640x480", "--out", report.path])
        #expect(diff.status == 0, "\(diff.output)\(diff.errors)")
        #expect(diff.output.contains("0 changed, 0 added, 0 removed, 0 renamed, 3 unchanged"), "\(diff.output)")

        let shots = try await lab.cli([
            "shots", "5", "--revision", "1", "--size", "640x480", "--out", lab.folder.appendingPathComponent("shots").path,
        ])
        #expect(shots.status == 0, "\(shots.errors)")
        #expect(shots.output.contains("3 slides of presentation 5, revision 1 (kept)"), "\(shots.output)")

        let rollback = try await lab.cli(["rollback", "5"])
        #expect(rollback.status == 0, "\(rollback.errors)")
        let served = try #require(try lab.clientLibrary().entry(id: 5)).presentation
        #expect(served.revision == 1)
        #expect(served.dialect == .veeva)
        #expect(served.slides.map(\.name) == ["KM_B/KM_B.html", "KM_A/KM_A.html", "KM_C/index.html"])
    }
}
