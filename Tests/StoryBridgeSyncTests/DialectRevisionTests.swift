import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// Kept revisions of a Veeva or OCE deck installed by hand: `diff`, `shots --revision` and
/// `rollback` read them in their dialect, as they were installed (real CLI, real zips, real
/// headless Chromium).
@Suite("Kept revisions of a Veeva or OCE deck")
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

    @Test(
        "an OCE delivery installed twice with one slide changed: diff names that slide in its sequence; shots writes each sequence's slides in its folder"
    )
    func oceDiffAndShots() async throws {
        let lab = try SyncLab()
        let delivery = lab.folder.appendingPathComponent("delivery")
        try OceDeliveryFixture.writeZips(in: delivery)
        let first = try await lab.cli(["install", delivery.path, "--id", "7"])
        #expect(first.status == 0, "\(first.errors)")
        // The second delivery's Safety sequence says something else on its one slide.
        let safety = delivery.appendingPathComponent("Safety.zip")
        try FileManager.default.removeItem(at: safety)
        let writer = try ZipWriter(path: safety.path)
        try writer.add(
            "Safety/01_safety.html",
            text: OceDeliveryFixture.page("01_safety.html").replacingOccurrences(
                of: "<h1 id=\"title\">01_safety.html</h1>",
                with: "<h1 id=\"title\" style=\"background:#c00;height:300px\">Safety, revised</h1>"))
        try writer.add("Safety/css/deck.css", text: "body { color: rgb(4, 5, 6); }\n")
        try writer.add("Safety/js/player.js", text: OceDeliveryFixture.playerLibrary)
        try writer.close()
        let second = try await lab.cli(["install", delivery.path, "--id", "7"])
        #expect(second.status == 0, "\(second.errors)")
        #expect(try lab.clientLibrary().keptRevisions(id: 7).first?.dialect == .oce)

        let report = lab.folder.appendingPathComponent("report.html")
        let diff = try await lab.cli(["diff", "7", "--from", "1", "--to", "2", "--size", "640x480", "--out", report.path])
        #expect(diff.output.contains("1 changed, 0 added, 0 removed, 0 renamed, 5 unchanged"), "\(diff.output)")
        #expect(diff.output.contains("Safety/01_safety.html"), "\(diff.output)")

        let out = lab.folder.appendingPathComponent("shots")
        let shots = try await lab.cli(["shots", "7", "--size", "640x480", "--out", out.path])
        #expect(shots.status == 0, "\(shots.errors)")
        #expect(shots.output.contains("6 slides of presentation 7"), "\(shots.output)")
        for slide in OceDeliveryFixture.order {
            let png = out.appendingPathComponent(String(slide.dropLast(5)) + ".png")
            #expect(FileManager.default.fileExists(atPath: png.path), "\(png.path)")
        }
    }
}
