import Foundation
import StoryBridge
import StoryBridgeScripts
import StoryBridgeServer
import StoryBridgeTesting
import Testing

/// A library with deck 5 installed twice (revision 1 kept on disk, revision 2 served) and deck 6
/// installed once, served by a real host whose inspector has the Rollback and Unpin buttons.
private struct RevisionLab {
    let folder: URL
    let directory: DataDirectory
    let store: LibraryStore

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("inspector-rollback-\(UUID().uuidString)")
        directory = DataDirectory(folder.appendingPathComponent("data"))
        try directory.prepare()
        store = try LibraryStore(directory: directory)
        for version in ["v1", "v2"] { try install(id: 5, version: version) }
        try install(id: 6, version: "only")
    }

    /// Installs a two-slide deck whose second slide says `version`, keeping one earlier revision.
    func install(id: Int, version: String) throws {
        let zip = folder.appendingPathComponent("deck-\(id)-\(version).zip")
        let writer = try ZipWriter(path: zip.path)
        try writer.add("index.html", text: "<!DOCTYPE html><html><head><title>deck \(id)</title></head><body>start</body></html>")
        try writer.add("next.html", text: "<!DOCTYPE html><html><body><h1 id=\"says\">\(version)</h1></body></html>")
        try writer.close()
        var options = LibraryStore.InstallOptions(id: id, name: "Deck \(id)")
        options.keptRevisions = 1
        _ = try store.install(zip: zip, options: options)
    }

    func served(_ id: Int) throws -> Presentation {
        try #require(try store.entry(id: id)).presentation
    }

    /// A host serving decks 5 and 6 of the library, its revisions (Rollback, Unpin) under the
    /// library's control.
    func startHost() async throws -> TestHost {
        var configuration = ServerConfiguration(port: 0)
        configuration.revisions = RevisionControl(store: store)
        return try await TestHost.start(
            presentationFolders: [try served(5).root, try served(6).root],
            catalogs: [.init(id: 5), .init(id: 6)], dataDirectory: directory, server: configuration)
    }
}

@Suite("Inspector: Rollback and Unpin buttons", .serialized)
struct InspectorRollbackTests {
    @Test(
        "the Revisions panel shows the served and kept revisions; Rollback serves the kept one again (a viewer gets it at its next slide), pins it; Unpin lifts the pin"
    )
    func rollbackFromTheInspector() async throws {
        let lab = try RevisionLab()
        defer { try? FileManager.default.removeItem(at: lab.folder) }
        let host = try await lab.startHost()
        // What `storybridge serve` of the library runs: the catalog watcher that swaps revisions in.
        let watcher = Task { await LibraryCatalogWatcher(store: lab.store, interval: .milliseconds(100)).run(host: host.runtime) }
        let browser = try await SharedBrowser.shared.get()
        let viewer = try await browser.newPage()
        let inspector = try await browser.newPage()
        try await withCleanup {
            try await viewer.navigate(to: host.slideURL(presentationId: 5, slide: "next.html"))
            #expect(try await viewer.text("#says") == "v2")

            try await inspector.navigate(to: host.inspectorURL)
            try await inspector.waitFor("!document.getElementById('revisions').hidden")
            let card = "#revision-decks .revision-deck[data-presentation=\"5\"]"
            let before = try await inspector.waitFor("(function(){var c=document.querySelector('\(card)');return c?c.textContent:null;})()")
            #expect(before.stringValue?.contains("serves revision 2") == true, "\(before)")
            #expect(before.stringValue?.contains("kept: revision 1") == true, "\(before)")
            // Deck 6 has nothing kept: its Rollback is disabled; nobody is pinned, so no Unpin.
            #expect(
                try await inspector.evaluate(
                    "document.querySelector('[data-presentation=\"6\"] button[data-action=\"rollback\"]').disabled")
                    == true)
            #expect(try await inspector.evaluate("document.querySelectorAll('button[data-action=\"unpin\"]').length") == 0)

            try await inspector.click("\(card) button[data-action=\"rollback\"]")
            let rolledBack = try await inspector.waitFor(
                "(function(){var l=window.__inspectorRevisions.last;return l&&l.to?l:null;})()")
            #expect(rolledBack["to"]?["revision"] == 1)
            #expect(rolledBack["from"]?["revision"] == 2)
            let milliseconds = try #require(rolledBack["ms"]?.doubleValue)
            // The swap is one transaction and touches no file; 50 ms is the target (not asserted
            // below it on a shared machine: see docs/SYNC.md).
            #expect(milliseconds >= 0)
            #expect(try lab.store.entry(id: 5)?.presentation.revision == 1)
            #expect(try lab.store.pin(id: 5) != nil)
            let pinned = try await inspector.waitFor(
                "(function(){var c=document.querySelector('\(card)');return c&&c.querySelector('button[data-action=\"unpin\"]')?c.textContent:null;})()"
            )
            #expect(pinned.stringValue?.contains("serves revision 1") == true, "\(pinned)")
            #expect(pinned.stringValue?.contains("pinned") == true)
            #expect(try await inspector.text("#revision-message")?.contains("serves revision 1 again") == true)

            // The open viewer keeps its slide; its next slide comes from the rolled-back revision.
            try await SyncWait.until { host.runtime.library.presentation(id: 5)?.root == (try? lab.served(5).root) }
            #expect(try await viewer.text("#says") == "v2")
            try await viewer.navigate(to: host.slideURL(presentationId: 5, slide: "next.html"))
            #expect(try await viewer.text("#says") == "v1")

            try await inspector.click("\(card) button[data-action=\"unpin\"]")
            try await inspector.waitFor("document.querySelectorAll('button[data-action=\"unpin\"]').length === 0")
            #expect(try lab.store.pin(id: 5) == nil)
            #expect(try lab.store.history(id: 5).map(\.event) == ["install", "update", "rollback"])
        } cleanup: {
            watcher.cancel()
            await viewer.close()
            await inspector.close()
            await host.stop()
        }
    }

    @Test(
        "the revisions endpoint refuses: no token (403), an unknown deck (404), nothing kept or not pinned (409 with the reason), a host without a library (404, no panel)"
    )
    func endpointRefusals() async throws {
        let lab = try RevisionLab()
        defer { try? FileManager.default.removeItem(at: lab.folder) }
        let host = try await lab.startHost()
        let plain = try await TestHost.start(presentationFolders: [try lab.served(6).root])
        let busy = try await TestHost.start(
            presentationFolders: [try lab.served(5).root], catalogs: [.init(id: 5)],
            server: {
                var busy = ServerConfiguration(port: 0)
                busy.revisions = RevisionControl(store: lab.store) { _ in throw SyncIsRunning() }
                return busy
            }())
        let page = try await SharedBrowser.shared.get().newPage()
        try await withCleanup {
            try await page.navigate(to: host.inspectorURL)
            func answer(_ path: String, token: String? = nil, method: String = "POST") async throws -> (Int, String) {
                let query = token.map { "?token=\($0)" } ?? ""
                let pair = try #require(
                    try await page.evaluate(
                        "fetch('\(path)\(query)', {method: '\(method)'}).then(r => r.text().then(t => [r.status, t]))"
                    ).arrayValue)
                return (pair.first?.intValue ?? 0, pair.last?.stringValue ?? "")
            }
            let token = host.server.token
            #expect(try await answer("/__storybridge/revisions/5/rollback").0 == 403)
            #expect(try await answer("/__storybridge/revisions", method: "GET").0 == 403)
            #expect(try await answer("/__storybridge/revisions/5/rollback", token: "wrong").0 == 403)
            let unknown = try await answer("/__storybridge/revisions/999/rollback", token: token)
            #expect(unknown.0 == 404)
            #expect(unknown.1.contains("no presentation with id 999"), "\(unknown)")
            #expect(try await answer("/__storybridge/revisions/nine/rollback", token: token).0 == 404)
            let nothingKept = try await answer("/__storybridge/revisions/6/rollback", token: token)
            #expect(nothingKept.0 == 409)
            #expect(nothingKept.1.contains("has no earlier revision kept on disk"), "\(nothingKept)")
            let notPinned = try await answer("/__storybridge/revisions/5/unpin", token: token)
            #expect(notPinned.0 == 409)
            #expect(notPinned.1.contains("is not pinned"), "\(notPinned)")
            // Refused changes change nothing.
            #expect(try lab.store.entry(id: 5)?.presentation.revision == 2)
            #expect(try lab.store.history(id: 6).map(\.event) == ["install"])

            try await page.navigate(to: busy.inspectorURL)
            let duringSync = try await answer("/__storybridge/revisions/5/rollback", token: busy.server.token)
            #expect(duringSync.0 == 409)
            #expect(duringSync.1.contains("A sync is installing revisions"), "\(duringSync)")
            #expect(try lab.store.entry(id: 5)?.presentation.revision == 2)

            try await page.navigate(to: plain.inspectorURL)
            try await page.waitFor("document.getElementById('status').textContent === 'live'")
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await page.evaluate("document.getElementById('revisions').hidden") == true)
            #expect(try await answer("/__storybridge/revisions", token: plain.server.token, method: "GET").0 == 404)
        } cleanup: {
            await page.close()
            await host.stop()
            await plain.stop()
            await busy.stop()
        }
    }
}

/// Waits for a condition without a browser.
private enum SyncWait {
    static func until(seconds: Double = 10, _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while try !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut() }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    struct TimedOut: Error {}
}
