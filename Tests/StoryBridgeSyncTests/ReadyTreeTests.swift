import Foundation
import StoryBridge
import StoryBridgeSync
import StoryBridgeTesting
import Testing

@Suite("Delta updates start from a ready tree of the installed revision, built after the swap", .serialized)
struct ReadyTreeTests {
    /// The names in the client's ready-tree folder.
    static func readyTrees(_ lab: SyncLab) -> [String] {
        let folder = lab.clientDirectory.root.appendingPathComponent("ready")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    /// The ready tree of the revision of presentation `id` installed now.
    static func tree(_ lab: SyncLab, id: Int) throws -> URL {
        let installed = try #require(try lab.clientLibrary().entry(id: id)).presentation.root
        return lab.clientDirectory.root.appendingPathComponent("ready/\(id)-\(installed.lastPathComponent)")
    }

    /// Every regular file under `folder` by relative path, with its inode.
    static func inodes(in folder: URL) throws -> [String: UInt64] {
        var inodes: [String: UInt64] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder.path) {
            var status = stat()
            guard lstat(folder.appendingPathComponent(path).path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            inodes[path] = UInt64(status.st_ino)
        }
        return inodes
    }

    /// Expects the ready tree of presentation `id`'s installed revision to be the only tree, to
    /// hold exactly the files of the installed package (not the media added beside it), each
    /// the installed file's inode.
    static func expectTreeOfInstalledRevision(_ lab: SyncLab, id: Int) throws {
        let tree = try tree(lab, id: id)
        #expect(readyTrees(lab) == [tree.lastPathComponent])
        let installed = try #require(try lab.clientLibrary().entry(id: id)).presentation.root
        let treeFiles = try inodes(in: tree)
        let installedFiles = try inodes(in: installed)
        #expect(treeFiles.count == 24, "\(treeFiles.keys.sorted())")
        for (path, inode) in treeFiles { #expect(installedFiles[path] == inode, "\(path) is not a link of the installed file") }
    }

    static func inode(_ url: URL) -> UInt64 { DeltaSyncTests.inode(url) }

    @Test("a full install and then a delta install each leave the ready tree of the revision they installed, and the delta took the tree")
    func builtAfterFullAndDelta() async throws {
        let lab = try await SyncLab.loggedIn { try DeltaSyncTests.publishDeck($0, id: 9, version: "v1") }
        let first = try await DeltaSyncTests.sync(lab)
        #expect(first.report.installed.map(\.id) == [9] && first.report.deltaUpdates == 0)
        try Self.expectTreeOfInstalledRevision(lab, id: 9)
        // The tree's folder becomes the new revision's folder: the delta renamed it, linked nothing.
        let treeFolder = Self.inode(try Self.tree(lab, id: 9))

        try DeltaSyncTests.publishDeck(lab, id: 9, version: "v2")
        let second = try await DeltaSyncTests.sync(lab)
        #expect(second.report.failed.isEmpty, "\(second.report.failed)")
        #expect(second.report.deltaUpdates == 1)
        let newRoot = try #require(try lab.clientLibrary().entry(id: 9)).presentation.root
        #expect(Self.inode(newRoot) == treeFolder)
        try DeltaSyncTests.expectSameFiles(lab, id: 9)
        try Self.expectTreeOfInstalledRevision(lab, id: 9)
        #expect(lab.leftoverDownloads().isEmpty, "\(lab.leftoverDownloads())")
        await lab.stopServer()
    }

    @Test("a delta from the ready tree makes the same revision folder, file for file and byte for byte, as one that links the files")
    func sameRevisionWithAndWithoutTree() async throws {
        var revisions: [[String: Data]] = []
        for useTree in [true, false] {
            let lab = try await DeltaSyncTests.syncedDeck(id: 9)
            let treeFolder = Self.inode(try Self.tree(lab, id: 9))
            if !useTree { try FileManager.default.removeItem(at: try Self.tree(lab, id: 9)) }
            try DeltaSyncTests.publishDeck(lab, id: 9, version: "v2")
            let update = try await DeltaSyncTests.sync(lab)
            #expect(update.report.deltaUpdates == 1)
            let root = try #require(try lab.clientLibrary().entry(id: 9)).presentation.root
            // (Without the tree the folder is a new one; its inode number may be the removed tree's.)
            if useTree { #expect(Self.inode(root) == treeFolder) }
            revisions.append(try DeltaKillTests.files(in: root))
            try Self.expectTreeOfInstalledRevision(lab, id: 9)
            await lab.stopServer()
        }
        #expect(revisions[0].count == 24)
        #expect(revisions[0] == revisions[1])
    }

    /// Ways a ready tree can be wrong.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case missingFile, wrongSize, otherInode, extraFile, extraFolder, staleRevision, partialBuild
        var testDescription: String { rawValue }
    }

    @Test(
        "a ready tree that is not whole, not the installed files or of another revision is removed and the update is still right",
        arguments: Damage.allCases)
    func damagedTree(_ damage: Damage) async throws {
        let lab = try await DeltaSyncTests.syncedDeck(id: 9)
        let installed = try #require(try lab.clientLibrary().entry(id: 9)).presentation.root
        let served = try DeltaKillTests.files(in: installed)
        let tree = try Self.tree(lab, id: 9)
        let ready = tree.deletingLastPathComponent()
        let manager = FileManager.default
        // Unlinked before written: a link's inode is the served file's, never written through.
        switch damage {
        case .missingFile:
            #expect(unlink(tree.appendingPathComponent("slides/s12.html").path) == 0)
        case .wrongSize:
            #expect(unlink(tree.appendingPathComponent("slides/s12.html").path) == 0)
            try Data("short".utf8).write(to: tree.appendingPathComponent("slides/s12.html"))
        case .otherInode:
            // Same size and bytes, but a copy: not the installed file.
            let file = tree.appendingPathComponent("slides/s12.html")
            let bytes = try Data(contentsOf: file)
            #expect(unlink(file.path) == 0)
            try bytes.write(to: file)
        case .extraFile:
            try Data("<p>".utf8).write(to: tree.appendingPathComponent("slides/extra.html"))
        case .extraFolder:
            try manager.createDirectory(at: tree.appendingPathComponent("leftover"), withIntermediateDirectories: false)
        case .staleRevision:
            // The tree of another revision (a rollback, a crash between install and build).
            try manager.moveItem(at: tree, to: ready.appendingPathComponent("9-\(UUID().uuidString.lowercased())"))
        case .partialBuild:
            // What a kill during a build leaves: a partial tree and no finished one.
            try manager.moveItem(at: tree, to: ready.appendingPathComponent("\(tree.lastPathComponent).partial"))
            #expect(unlink(ready.appendingPathComponent("\(tree.lastPathComponent).partial/index.html").path) == 0)
        }
        #expect(try DeltaKillTests.files(in: installed) == served)
        try DeltaSyncTests.publishDeck(lab, id: 9, version: "v2")
        let update = try await DeltaSyncTests.sync(lab)
        #expect(update.report.failed.isEmpty, "\(update.report.failed)")
        #expect(update.report.deltaUpdates == 1)
        let newRoot = try #require(try lab.clientLibrary().entry(id: 9)).presentation.root
        // Every unchanged file is a link of the served one (a damaged tree's own file would not
        // be), and nothing else is in the folder.
        let servedInodes = try Self.inodes(in: installed)
        for (path, inode) in try Self.inodes(in: newRoot) where path != "slides/s07.html" {
            #expect(servedInodes[path] == inode, "\(path) does not come from the served revision")
        }
        #expect(!FileManager.default.fileExists(atPath: newRoot.appendingPathComponent("leftover").path))
        try DeltaSyncTests.expectSameFiles(lab, id: 9)
        #expect(try DeltaKillTests.files(in: newRoot).count == 24)
        // The replaced revision (kept for rollback) is as it was served.
        #expect(try DeltaKillTests.files(in: installed) == served)
        try Self.expectTreeOfInstalledRevision(lab, id: 9)
        #expect(lab.leftoverDownloads().isEmpty, "\(lab.leftoverDownloads())")
        await lab.stopServer()
    }

    @Test(
        "an installed file replaced by another inode after its revision was verified: the tree's link is the verified inode (no stat of the installed side), and the update carries the verified bytes"
    )
    func installedFileReplacedAfterVerification() async throws {
        let lab = try await DeltaSyncTests.syncedDeck(id: 9)
        let installed = try #require(try lab.clientLibrary().entry(id: 9)).presentation.root
        let tree = try Self.tree(lab, id: 9)
        let file = installed.appendingPathComponent("slides/s12.html")
        let verifiedBytes = try Data(contentsOf: file)
        let verifiedInode = Self.inode(tree.appendingPathComponent("slides/s12.html"))
        #expect(Self.inode(file) == verifiedInode)
        // Another inode under the installed name, of the same size (unlinked first: a link's
        // inode is the tree's too, never written through).
        #expect(unlink(file.path) == 0)
        try Data(repeating: UInt8(ascii: "x"), count: verifiedBytes.count).write(to: file)
        #expect(Self.inode(file) != verifiedInode)
        let treeFolder = Self.inode(tree)
        try DeltaSyncTests.publishDeck(lab, id: 9, version: "v2")
        let update = try await DeltaSyncTests.sync(lab)
        #expect(update.report.failed.isEmpty, "\(update.report.failed)")
        #expect(update.report.deltaUpdates == 1)
        let newRoot = try #require(try lab.clientLibrary().entry(id: 9)).presentation.root
        #expect(Self.inode(newRoot) == treeFolder, "the tree was taken (not refused) and became the new revision")
        let carried = newRoot.appendingPathComponent("slides/s12.html")
        #expect(try Data(contentsOf: carried) == verifiedBytes, "the verified bytes, not the replacement")
        #expect(Self.inode(carried) == verifiedInode)
        await lab.stopServer()
    }

    @Test("a run that installs nothing makes the tree an installed revision lacks (a kill after the swap, before or during its build)")
    func madeUpByTheNextRun() async throws {
        let lab = try await DeltaSyncTests.syncedDeck(id: 9)
        let tree = try Self.tree(lab, id: 9)
        // What a kill during the build leaves: a partial tree, no finished one.
        try FileManager.default.moveItem(at: tree, to: tree.appendingPathExtension("partial"))
        let idle = try await lab.cli(["sync", "--content"])
        #expect(idle.status == 0, "\(idle.errors)")
        try Self.expectTreeOfInstalledRevision(lab, id: 9)
        // And the update then starts from it.
        let treeFolder = Self.inode(tree)
        try DeltaSyncTests.publishDeck(lab, id: 9, version: "v2")
        let update = try await DeltaSyncTests.sync(lab)
        #expect(update.report.deltaUpdates == 1)
        #expect(Self.inode(try #require(try lab.clientLibrary().entry(id: 9)).presentation.root) == treeFolder)
        try DeltaSyncTests.expectSameFiles(lab, id: 9)
        await lab.stopServer()
    }

    @Test("SIGKILL while a ready tree is being built (a deck of 6,000 files): no partial tree is trusted; the next run builds it whole")
    func killedDuringBuild() async throws {
        let lab = try SyncLab()
        let zip = lab.folder.appendingPathComponent("many-files.zip")
        let writer = try ZipWriter(path: zip.path)
        try writer.add("index.html", text: "<!DOCTYPE html><html><head><title>many</title></head><body>start</body></html>")
        for folder in 0..<300 {
            for file in 0..<20 { try writer.add("slides/f\(folder)/p\(file).html", text: "<p>\(folder) \(file)</p>") }
        }
        try writer.close()
        _ = try lab.serverLibrary.install(zip: zip, options: .init(id: 11, name: "Many"))
        try await lab.startServer()
        try await lab.loginAsService()
        #expect(try await lab.cli(["sync"]).status == 0)
        let ready = lab.clientDirectory.root.appendingPathComponent("ready")
        let child = try await lab.spawn(["sync", "--content"])
        // Killed as soon as the partial tree appears (polled every millisecond).
        let deadline = Date().addingTimeInterval(60)
        while !Self.readyTrees(lab).contains(where: { $0.hasSuffix(".partial") }), Date() < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        child.process.kill()
        _ = await SyncLab.finish(child)
        let left = Self.readyTrees(lab)
        #expect(left.contains { $0.hasSuffix(".partial") }, "the kill came after the build: \(left)")
        // A tree under its final name, if the rename beat the kill, is whole.
        for name in left where !name.hasSuffix(".partial") {
            #expect(try Self.inodes(in: ready.appendingPathComponent(name)).count == 6001)
        }
        // The revision was swapped in before the build began: served whole.
        let installed = try #require(try lab.clientLibrary().entry(id: 11)).presentation.root
        #expect(try Self.inodes(in: installed).count == 6001)
        let next = try await lab.cli(["sync", "--content"])
        #expect(next.status == 0, "\(next.errors)")
        #expect(Self.readyTrees(lab) == ["11-\(installed.lastPathComponent)"])
        let tree = try Self.inodes(in: ready.appendingPathComponent("11-\(installed.lastPathComponent)"))
        #expect(tree == (try Self.inodes(in: installed)))
        await lab.stopServer()
    }

    @Test("a delta that changes a file the ready tree linked leaves the served revision's files and their inodes' bytes unchanged")
    func servedFilesUntouched() async throws {
        let lab = try await DeltaSyncTests.syncedDeck(id: 9)
        let installed = try #require(try lab.clientLibrary().entry(id: 9)).presentation.root
        let served = try DeltaKillTests.files(in: installed)
        let servedInodes = try Self.inodes(in: installed)
        let changed = "slides/s07.html"
        #expect(try Self.inodes(in: try Self.tree(lab, id: 9))[changed] == servedInodes[changed])
        try DeltaSyncTests.publishDeck(lab, id: 9, version: "v2")
        let update = try await DeltaSyncTests.sync(lab)
        #expect(update.report.deltaUpdates == 1)
        // The replaced revision's folder (kept for rollback): same names, same inodes, same bytes.
        #expect(try Self.inodes(in: installed) == servedInodes)
        #expect(try DeltaKillTests.files(in: installed) == served)
        #expect(try String(contentsOf: installed.appendingPathComponent(changed), encoding: .utf8).contains("Slide 7 v1"))
        let newRoot = try #require(try lab.clientLibrary().entry(id: 9)).presentation.root
        #expect(try Self.inodes(in: newRoot)[changed] != servedInodes[changed])
        #expect(try String(contentsOf: newRoot.appendingPathComponent(changed), encoding: .utf8).contains("Slide 7 v2"))
        await lab.stopServer()
    }

    @Test(
        "a rollback makes the tree stale: the next run replaces it with the tree of the revision rolled back to; removing the content removes it"
    )
    func rollbackAndRemoval() async throws {
        let lab = try await DeltaSyncTests.syncedDeck(id: 9)
        try DeltaSyncTests.publishDeck(lab, id: 9, version: "v2")
        _ = try await DeltaSyncTests.sync(lab)
        let rolledFrom = try Self.tree(lab, id: 9).lastPathComponent
        let rollback = try await lab.cli(["rollback", "9"])
        #expect(rollback.status == 0, "\(rollback.errors)")
        #expect(try Self.tree(lab, id: 9).lastPathComponent != rolledFrom)
        // Revisions are read from the catalog: the tree is none of them.
        #expect(try lab.clientLibrary().keptRevisions(id: 9).count == 1)
        // The next run removes the stale tree and makes the one of the revision rolled back to.
        let pinned = try await DeltaSyncTests.sync(lab)
        #expect(pinned.report.pinned == [9])
        #expect(!Self.readyTrees(lab).contains(rolledFrom))
        try Self.expectTreeOfInstalledRevision(lab, id: 9)

        #expect(try await lab.cli(["unpin", "9"]).status == 0)
        try DeltaSyncTests.publishDeck(lab, id: 9, version: "v3")
        let update = try await DeltaSyncTests.sync(lab)
        #expect(update.report.deltaUpdates == 1, "\(update.report.failed)")
        try Self.expectTreeOfInstalledRevision(lab, id: 9)
        let store = try lab.clientLibrary()
        try await SyncMaintenance(library: store).removeContent(id: 9)
        #expect(Self.readyTrees(lab).isEmpty, "\(Self.readyTrees(lab))")
        await lab.stopServer()
    }
}
