import Foundation
import GRDB
import StoryBridgeTesting
import Testing

@testable import StoryBridge

@Suite("Kept revisions, rollback and history")
struct RollbackTests {
    /// A package lab and its library with revisions 1...count of presentation 3 installed, each with
    /// its own title, keeping `kept`.
    private func libraryWithRevisions(_ count: Int, kept: Int) throws -> (lab: PackageLab, store: LibraryStore) {
        let lab = try PackageLab()
        let store = try lab.store()
        for revision in 1...count {
            var options = LibraryStore.InstallOptions(id: 3, name: "Deck")
            options.keptRevisions = kept
            _ = try store.install(zip: try lab.validPackage("r\(revision).zip", title: "v\(revision)"), options: options)
        }
        return (lab, store)
    }

    private func servedTitle(_ store: LibraryStore) throws -> String? {
        try store.entry(id: 3)?.presentation.slide(named: "index.html")?.metadata.title
    }

    @Test("the replaced revision stays on disk; rollback serves it again with its slides and pins it, without touching files")
    func rollsBack() throws {
        let (lab, store) = try libraryWithRevisions(2, kept: 1)
        #expect(try servedTitle(store) == "v2")
        let kept = try store.keptRevisions(id: 3)
        #expect(kept.map(\.revision) == [1])
        let keptFolder = try #require(kept.first?.folder)
        #expect(FileManager.default.fileExists(atPath: lab.directory.presentations.appendingPathComponent(keptFolder).path))

        // The swap is one transaction and no file is copied or moved (the served folder becomes
        // the kept one below); its time is a benchmark's (docs/SYNC.md), not a test's bound.
        let outcome = try store.rollback(id: 3)
        #expect(outcome.fromRevision == 2 && outcome.toRevision == 1)

        let served = try #require(try store.entry(id: 3))
        #expect(served.presentation.revision == 1)
        #expect(served.presentation.root.lastPathComponent == keptFolder)
        #expect(try servedTitle(store) == "v1")
        #expect(served.presentation.slide(named: "b.html")?.metadata.swipePrevious == "index.html")
        #expect(served.presentation.mediaFiles.map(\.fileName) == ["film.mp4", "guide.pdf"])
        // The revision rolled back from is now the kept one, so nothing of it is lost.
        #expect(try store.keptRevisions(id: 3).map(\.revision) == [2])
        let pin = try #require(try store.pin(id: 3))
        #expect(pin.revision == 1 && pin.rolledBackFromRevision == 2)
        // A new opening of the library (a new process) sweeps nothing that is kept or served.
        let reopened = try lab.store()
        #expect(try reopened.entry(id: 3)?.presentation.revision == 1)
        #expect(Set(lab.leftovers()) == Set([keptFolder] + (try reopened.keptRevisions(id: 3).map(\.folder))))
    }

    @Test("rollback without an earlier kept revision is refused and changes nothing")
    func refusesWithoutKeptRevision() throws {
        let (lab, store) = try libraryWithRevisions(2, kept: 0)
        #expect(throws: RollbackError.noEarlierRevision(3)) { try store.rollback(id: 3) }
        #expect(throws: RollbackError.notInstalled(9)) { try store.rollback(id: 9) }
        #expect(try store.entry(id: 3)?.presentation.revision == 2)
        #expect(try store.keptRevisions(id: 3).isEmpty)
        #expect(try store.pin(id: 3) == nil)
        #expect(lab.leftovers().count == 1)
    }

    @Test("keep-revisions N keeps the N newest replaced revisions and deletes older folders")
    func prunes() throws {
        let (lab, store) = try libraryWithRevisions(5, kept: 2)
        let kept = try store.keptRevisions(id: 3)
        #expect(kept.map(\.revision) == [4, 3])
        let served = try #require(try store.entry(id: 3)).presentation.root.lastPathComponent
        #expect(Set(lab.leftovers()) == Set(kept.map(\.folder) + [served]))
        // Two rollbacks walk back through both kept revisions; a third has nowhere to go.
        #expect(try store.rollback(id: 3).toRevision == 4)
        #expect(try store.rollback(id: 3).toRevision == 3)
        #expect(try servedTitle(store) == "v3")
        #expect(throws: RollbackError.noEarlierRevision(3)) { try store.rollback(id: 3) }
        // The pin remembers the revision first rolled back from.
        #expect(try store.pin(id: 3)?.rolledBackFromRevision == 5)
    }

    @Test("unpin lifts the pin; unpin of an unpinned deck and rollback past the oldest kept revision are refused")
    func unpins() throws {
        let (_, store) = try libraryWithRevisions(2, kept: 1)
        try store.rollback(id: 3)
        try store.unpin(id: 3)
        #expect(try store.pin(id: 3) == nil)
        #expect(throws: RollbackError.notPinned(3)) { try store.unpin(id: 3) }
        // Revision 1 is served and the kept revision 2 is newer: there is nothing earlier to roll back to.
        #expect(throws: RollbackError.noEarlierRevision(3)) { try store.rollback(id: 3) }
        #expect(try store.pin(id: 3) == nil)
        #expect(try store.entry(id: 3)?.presentation.revision == 1)
    }

    @Test("history records installs, updates, rollbacks and removals with revision, bytes and how")
    func history() throws {
        let (lab, store) = try libraryWithRevisions(2, kept: 1)
        try store.rollback(id: 3)
        var options = LibraryStore.InstallOptions(id: 3)
        options.keptRevisions = 1
        options.how = .delta
        options.bytesTransferred = 4096
        options.packageRevision = 7
        _ = try store.install(zip: try lab.validPackage("r3.zip", title: "v3"), options: options)
        #expect(try store.pin(id: 3) == nil)
        try store.remove(id: 3)
        let lines = try store.history(id: 3)
        #expect(lines.map(\.event) == ["install", "update", "rollback", "update", "removal"])
        #expect(lines.map(\.how) == ["local", "local", "rollback", "delta", "removal"])
        #expect(lines.map(\.revision) == [1, 2, 1, 2, nil])
        #expect(lines.map(\.bytes) == [0, 0, 0, 4096, 0])
        #expect(lines[3].packageRevision == 7)
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0.at <= $1.at })
        // Removal takes the kept revisions with it.
        #expect(lab.leftovers().isEmpty)
        #expect(try store.keptRevisions(id: 3).isEmpty)
    }
}

@Suite("Sessions record the revision shown")
struct SessionRevisionTests {
    @Test("a session records the revision of its presentation at its start; a later revision's session records that one")
    func sessionCarriesRevision() async throws {
        var presentation = try TemporaryPresentation.threeSlides().load(id: 4)
        presentation.revision = 7
        let (host, _) = await makeHost(presentation: presentation)
        presentation.revision = 8
        host.library.add(presentation)
        let second = await host.viewers.viewer(id: "viewer-2")
        await host.pageLoaded(second, presentationId: 4, slide: "index.html", pageLoad: "load-2")
        let sessions = try await host.analytics.sessions(presentationId: 4)
        #expect(sessions.map(\.presentationRevision).sorted { ($0 ?? 0) < ($1 ?? 0) } == [7, 8])
        // Read back from SQLite through the column of migration v11-revisions.
        let stored = try await host.analytics.database.read { db in
            try Int.fetchAll(db, sql: "SELECT presentationRevision FROM session ORDER BY presentationRevision")
        }
        #expect(stored == [7, 8])
    }
}
