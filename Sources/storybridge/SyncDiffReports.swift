import Foundation
import StoryBridge
import StoryBridgeScripts

/// `sync --diff-report DIR`: after a sync, the visual diff of every deck it updated, between the
/// revision the update replaced (kept on disk by `--keep-revisions`) and the new one, as
/// `storybridge diff ID --from OLD --to NEW` makes it with its defaults.
///
/// The reports never change the sync's outcome or exit status: a deck whose replaced revision
/// is not on disk, or a report that cannot be made, gets a line saying why; a browser that cannot
/// be started or a folder that cannot be written is said once and ends the reports.
struct SyncDiffReports {
    /// The revision a presentation served before the sync: its library revision and folder.
    struct ServedRevision: Sendable, Hashable {
        var revision: Int
        var folder: String
    }

    /// Where the reports go.
    let folder: URL
    /// The library the sync installs into.
    let store: LibraryStore
    /// What every installed presentation served before the sync, by id.
    let before: [Int: ServedRevision]
    /// The sync's `--keep-revisions`, to say why a replaced revision is not on disk.
    let keepRevisions: Int

    /// Notes what `store` serves now; call it before the sync starts.
    init(folder: URL, store: LibraryStore, keepRevisions: Int) throws(CommandFailure) {
        self.folder = folder
        self.store = store
        self.keepRevisions = keepRevisions
        do {
            before = Dictionary(
                uniqueKeysWithValues: try store.entries().map {
                    ($0.presentation.id, ServedRevision(revision: $0.presentation.revision, folder: $0.presentation.root.lastPathComponent))
                })
        } catch {
            throw CommandFailure("cannot read the library before the sync", error, status: CommandFailure.storage)
        }
    }

    /// The report's file for an update of `id` from revision `from` to `to`.
    func reportFile(id: Int, from: Int, to: Int) -> URL {
        folder.appendingPathComponent("\(id)-\(from)-to-\(to).html")
    }

    /// Makes the report of each presentation in `updated` (the ids the sync installed; first
    /// installs have nothing to compare and are passed over) and prints one line per deck.
    func make(updated: [Int]) async {
        var pairs: [(id: Int, from: DeckFiles, to: DeckFiles)] = []
        for id in updated.sorted() {
            guard let old = before[id], let entry = try? store.entry(id: id), entry.presentation.root.lastPathComponent != old.folder
            else { continue }
            let new = entry.presentation.revision
            let kept = (try? store.keptRevisions(id: id))?.first { $0.folder == old.folder }
            guard let kept else {
                let why =
                    keepRevisions == 0
                    ? "this sync ran with --keep-revisions 0, which keeps no earlier revision"
                    : "it is no longer kept on disk"
                Terminal.say(
                    "diff report: presentation \(id), revision \(old.revision) -> \(new): cannot be made: revision \(old.revision) was replaced and \(why)"
                )
                continue
            }
            do {
                pairs.append((id, try DeckFiles.kept(kept, in: store.directory), DeckFiles.served(entry.presentation)))
            } catch {
                Terminal.say("diff report: presentation \(id), revision \(old.revision) -> \(new): cannot be made: \(error.message)")
            }
        }
        guard !pairs.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            Terminal.warn("sync --diff-report: no report: \(SystemFailure("cannot create the folder", folder.path, error: error))")
            return
        }
        let browser: HeadlessChromium
        do {
            browser = try await HeadlessChromium.launch(extraArguments: ["--hide-scrollbars"])
        } catch {
            Terminal.warn(
                "sync --diff-report: no report for \(pairs.count) updated deck\(pairs.count == 1 ? "" : "s"): \(ErrorWording.describe(error))"
            )
            return
        }
        for pair in pairs {
            Terminal.say(await report(pair.id, from: pair.from, to: pair.to, browser: browser))
        }
        await browser.close()
    }

    /// Compares two revisions of `id`, writes the report and returns the line that says what changed.
    private func report(_ id: Int, from old: DeckFiles, to new: DeckFiles, browser: HeadlessChromium) async -> String {
        let heading = "diff report: presentation \(id), revision \(old.catalog.revision) -> \(new.catalog.revision)"
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("storybridge-diff-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let result: VisualDiff.Result
        do {
            result = try await VisualDiff(browser: browser).compare(old, new, workFolder: work, progressLabel: "diff \(id)")
        } catch {
            return "\(heading): cannot be made: \(ErrorWording.describe(error))"
        }
        let file = reportFile(id: id, from: old.catalog.revision, to: new.catalog.revision)
        do {
            try DiffReport(result).html.write(to: file, atomically: true, encoding: .utf8)
        } catch {
            return "\(heading): cannot be written: \(SystemFailure("cannot write the report", file.path, error: error))"
        }
        return "\(heading): \(Self.counts(result)); \(file.path)"
    }

    /// `1 changed (slide4.html), 0 added, 0 removed, 0 renamed, 5 unchanged`.
    static func counts(_ result: VisualDiff.Result) -> String {
        func named(_ names: [String]) -> String {
            guard !names.isEmpty else { return "" }
            let shown = names.prefix(5).joined(separator: ", ")
            return " (\(shown)\(names.count > 5 ? ", …" : ""))"
        }
        return "\(result.changed.count) changed\(named(result.changed.map(\.slide))), "
            + "\(result.added.count) added\(named(result.added.map(\.slide))), "
            + "\(result.removed.count) removed\(named(result.removed.map(\.slide))), "
            + "\(result.renamed.count) renamed, \(result.unchanged.count) unchanged"
    }
}
