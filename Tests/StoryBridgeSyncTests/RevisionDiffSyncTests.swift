import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// `storybridge diff ID --from R1 --to R2` on revisions kept on disk by sync, and
/// `sync --diff-report DIR`: real content server on loopback, real CLI, real headless Chromium.
@Suite("Visual diff of kept revisions and sync --diff-report", .serialized)
struct RevisionDiffSyncTests {
    /// Slides of plain coloured blocks (no text, so no font differences), all linked from index.html.
    static func blockDeck(recolouring: [String: String] = [:]) -> [String: String] {
        func block(_ colour: String, links: [String] = []) -> String {
            """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><meta name="clm" content="\(links.joined(separator: ","))">
            <style>html,body{margin:0;background:#fff}#block{position:absolute;left:100px;top:80px;width:400px;height:300px;background:\(colour)}</style>
            </head><body><div id="block"></div></body></html>
            """
        }
        let names = (1...5).map { "slide\($0).html" }
        var files = ["index.html": block("#333", links: names)]
        for (number, name) in names.enumerated() {
            files[name] = block(recolouring[name] ?? "rgb(\(number * 37 % 256), \(number * 91 % 256), \(number * 53 % 256))")
        }
        return files
    }

    static let size = ViewportSize(width: 640, height: 480)

    /// What the report `file` shows in a headless Chromium of its own.
    static func openReport(_ file: URL, size: ViewportSize) async throws -> DiffReportPage {
        let browser = try await HeadlessChromium.launch()
        // Closed (its exit awaited) whether the body returns or throws.
        return try await browser.closingAfter { browser in
            return try await DiffReportPage.open(file, in: browser, size: size)
        }
    }

    @Test(
        "diff by revision numbers: served against kept names the one slide that changed colour (exit 1); identical revisions exit 0; a revision not on disk is refused with those that are; shots --revision takes a kept one"
    )
    func diffKeptRevisions() async throws {
        let lab = try await SyncLab.loggedIn { try $0.publish(id: 4, files: Self.blockDeck()) }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        try lab.publish(id: 4, files: Self.blockDeck(recolouring: ["slide3.html": "#e91e63"]))
        let update = try await lab.cli(["sync", "--content"])
        #expect(update.status == 0, "\(update.errors)")
        #expect(try lab.clientLibrary().entry(id: 4)?.presentation.revision == 2)
        #expect(try lab.clientLibrary().keptRevisions(id: 4).map(\.revision) == [1])

        let report = lab.folder.appendingPathComponent("report-1-2.html")
        let changed = try await lab.cli(["diff", "4", "--from", "1", "--to", "2", "--size", "640x480", "--out", report.path])
        #expect(changed.status == 1, "\(changed.errors)")
        #expect(changed.output.contains("presentation 4, revision 1 (kept) -> presentation 4, revision 2"), "\(changed.output)")
        let findings = changed.output.split(separator: "\n").filter { $0.hasPrefix("  ") }
        #expect(findings.map { $0.split(separator: " ").first.map(String.init) } == ["changed"], "\(changed.output)")
        #expect(findings.first?.contains("slide3.html") == true)
        #expect(changed.output.contains("1 changed, 0 added, 0 removed, 0 renamed, 5 unchanged"))
        let page = try await Self.openReport(report, size: Self.size)
        #expect(page.changedSlides == ["slide3.html"])

        // Republished unchanged: revision 3 served, 2 kept (1 pruned: one earlier revision is kept by default).
        try lab.publish(id: 4, files: Self.blockDeck(recolouring: ["slide3.html": "#e91e63"]))
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        let same = try await lab.cli([
            "diff", "4", "--from", "2", "--to", "3", "--size", "640x480", "--out", lab.folder.appendingPathComponent("same.html").path,
        ])
        #expect(same.status == 0, "\(same.errors)")
        #expect(same.output.contains("0 changed, 0 added, 0 removed, 0 renamed, 6 unchanged"), "\(same.output)")

        let gone = try await lab.cli(["diff", "4", "--from", "1", "--to", "3"])
        #expect(gone.status == 65)
        #expect(gone.errors.contains("revision 1 of presentation 4 is not on disk; on disk: 3 (served), 2 (kept)"), "\(gone.errors)")
        let shotsGone = try await lab.cli(["shots", "4", "--revision", "1"])
        #expect(shotsGone.status == 65 && shotsGone.errors.contains("on disk: 3 (served), 2 (kept)"), "\(shotsGone.errors)")

        let shots = lab.folder.appendingPathComponent("shots-r2")
        let taken = try await lab.cli(["shots", "4", "--revision", "2", "--size", "640x480", "--out", shots.path])
        #expect(taken.status == 0, "\(taken.errors)")
        #expect(taken.output.contains("6 slides of presentation 4, revision 2 (kept)"), "\(taken.output)")
        let pictures = try FileManager.default.contentsOfDirectory(atPath: shots.path).filter { $0.hasSuffix(".png") }
        #expect(pictures.sorted() == ["index.png"] + (1...5).map { "slide\($0).png" })
    }

    @Test(
        "install of a new revision by hand keeps the replaced one as sync does: diff ID --from 1 --to 2 names the changed slide; --keep-revisions 0 keeps none"
    )
    func diffAfterHandReinstall() async throws {
        let lab = try SyncLab()
        func zip(_ name: String, _ files: [String: String]) throws -> String {
            let path = lab.folder.appendingPathComponent(name).path
            let writer = try ZipWriter(path: path)
            for (file, text) in files.sorted(by: { $0.key < $1.key }) { try writer.add(file, text: text) }
            try writer.close()
            return path
        }
        let first = try await lab.cli(["install", try zip("r1.zip", Self.blockDeck()), "--id", "7"])
        #expect(first.status == 0, "\(first.errors)")
        let second = try await lab.cli(["install", try zip("r2.zip", Self.blockDeck(recolouring: ["slide2.html": "#e91e63"])), "--id", "7"])
        #expect(second.status == 0, "\(second.errors)")
        #expect(second.output.contains("as presentation 7 (revision 2)"), "\(second.output)")
        #expect(try lab.clientLibrary().keptRevisions(id: 7).map(\.revision) == [1])

        let changed = try await lab.cli([
            "diff", "7", "--from", "1", "--to", "2", "--size", "640x480", "--out", lab.folder.appendingPathComponent("hand.html").path,
        ])
        #expect(changed.status == 1, "\(changed.errors)")
        #expect(changed.output.contains("presentation 7, revision 1 (kept) -> presentation 7, revision 2"), "\(changed.output)")
        let findings = changed.output.split(separator: "\n").filter { $0.hasPrefix("  ") }
        #expect(findings.count == 1 && findings.first?.contains("slide2.html") == true, "\(changed.output)")

        // A third install keeps only the newest replaced revision (2), as sync's default does.
        #expect(try await lab.cli(["install", try zip("r3.zip", Self.blockDeck()), "--id", "7"]).status == 0)
        #expect(try lab.clientLibrary().keptRevisions(id: 7).map(\.revision) == [2])
        let none = try await lab.cli(["install", try zip("r4.zip", Self.blockDeck()), "--id", "7", "--keep-revisions", "0"])
        #expect(none.status == 0, "\(none.errors)")
        #expect(try lab.clientLibrary().keptRevisions(id: 7).isEmpty)
        let refused = try await lab.cli(["install", try zip("r5.zip", Self.blockDeck()), "--keep-revisions=-1"])
        #expect(refused.status != 0 && refused.errors.contains("--keep-revisions must be 0 or more"), "\(refused.errors)")
    }

    @Test(
        "sync --diff-report after a republished package writes the report naming the one changed slide, shown in Chromium; --keep-revisions 0 says the report cannot be made"
    )
    func syncDiffReport() async throws {
        let lab = try await SyncLab.loggedIn { lab in
            try lab.publish(id: 4, files: Self.blockDeck())
            try lab.publish(id: 5, files: Self.blockDeck())
        }
        let reports = lab.folder.appendingPathComponent("reports")
        // First installs have nothing to compare.
        let first = try await lab.cli(["sync", "--content", "--diff-report", reports.path])
        #expect(first.status == 0, "\(first.errors)")
        #expect(!first.output.contains("diff report"))

        try lab.publish(id: 4, files: Self.blockDeck(recolouring: ["slide2.html": "#00bcd4"]))
        let update = try await lab.cli(["sync", "--content", "--diff-report", reports.path])
        #expect(update.status == 0, "\(update.errors)")
        let file = reports.appendingPathComponent("4-1-to-2.html")
        #expect(
            update.output.contains(
                "diff report: presentation 4, revision 1 -> 2: 1 changed (slide2.html), 0 added, 0 removed, 0 renamed, 5 unchanged; \(file.path)"
            ), "\(update.output)")
        // Presentation 5 was not updated: no report.
        #expect(try FileManager.default.contentsOfDirectory(atPath: reports.path) == ["4-1-to-2.html"])
        let page = try await Self.openReport(file, size: .standard)
        #expect(page.changedSlides == ["slide2.html"])
        #expect(page.decodedImages == 3)
        #expect(page.captions == ["before", "after", "changes in red"])

        try lab.publish(id: 5, files: Self.blockDeck(recolouring: ["slide1.html": "#000"]))
        let unkept = try await lab.cli(["sync", "--content", "--keep-revisions", "0", "--diff-report", reports.path])
        #expect(unkept.status == 0, "\(unkept.errors)")
        #expect(
            unkept.output.contains(
                "diff report: presentation 5, revision 1 -> 2: cannot be made: revision 1 was replaced and this sync ran with --keep-revisions 0"
            ), "\(unkept.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: reports.path) == ["4-1-to-2.html"])
    }

    @Test("sync --diff-report without Chromium says so once and the sync's exit status stands")
    func withoutChromium() async throws {
        let lab = try await SyncLab.loggedIn { lab in
            try lab.publish(id: 4, files: Self.blockDeck())
            try lab.publish(id: 5, files: Self.blockDeck())
        }
        #expect(try await lab.cli(["sync", "--content"]).status == 0)
        try lab.publish(id: 4, files: Self.blockDeck(recolouring: ["slide2.html": "#00bcd4"]))
        try lab.publish(id: 5, files: Self.blockDeck(recolouring: ["slide2.html": "#00bcd4"]))
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = lab.folder.path
        environment["STORYBRIDGE_CHROMIUM"] = nil
        let update = try await lab.cli(
            ["sync", "--content", "--diff-report", lab.folder.appendingPathComponent("r").path], environment: environment)
        #expect(update.status == 0, "\(update.errors)")
        #expect(update.output.contains("content: 2 installed"), "\(update.output)")
        let notes = update.errors.split(separator: "\n").filter { $0.contains("--diff-report") }
        #expect(notes.count == 1, "\(update.errors)")
        #expect(notes.first?.contains("no report for 2 updated decks") == true, "\(update.errors)")
        #expect(try lab.clientLibrary().entry(id: 5)?.presentation.revision == 2)

        // Without --content there is nothing to compare: refused as a usage error.
        let alone = try await lab.cli(["sync", "--diff-report", lab.folder.appendingPathComponent("r").path])
        #expect(alone.status == 64)
        #expect(alone.errors.contains("--diff-report goes with --content"), "\(alone.errors)")
    }
}

extension SyncLab {
    /// Runs the CLI like ``cli(_:input:)`` with `environment` instead of this process's.
    func cli(_ arguments: [String], environment: [String: String]) async throws -> (status: Int32, output: String, errors: String) {
        let output = Pipe()
        let errors = Pipe()
        let process = try await LaunchedProcess.launch(
            try storybridgeExecutable(), arguments: arguments + ["--data-dir", clientDirectory.root.path], environment: environment,
            input: .discard, output: .pipe(output), error: .pipe(errors))
        return await Self.finish((process, output, errors))
    }

    /// Installs on the server presentation `id` made of `files` (path to content), as a new revision.
    @discardableResult
    func publish(id: Int, files: [String: String]) throws -> LibraryStore.Entry {
        let zip = folder.appendingPathComponent("deck-\(id)-\(UUID().uuidString).zip")
        let writer = try ZipWriter(path: zip.path)
        for (path, text) in files.sorted(by: { $0.key < $1.key }) { try writer.add(path, text: text) }
        try writer.close()
        defer { try? FileManager.default.removeItem(at: zip) }
        return try serverLibrary.install(zip: zip, options: .init(id: id, name: "Deck \(id)"))
    }
}
