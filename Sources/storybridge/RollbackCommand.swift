import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeSync

/// `storybridge rollback ID`: serve the previous kept revision of a presentation again, offline.
struct RollbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback",
        abstract: "Serve the previous revision of a presentation again, offline, and pin it.",
        discussion: """
            Points the library at the newest revision older than the served one that is still kept \
            on disk (sync keeps --keep-revisions of them, default 1). Nothing is downloaded or \
            copied; a running serve picks the change up at its next look at the library (within a \
            second). The revision rolled back from is kept, so nothing is lost.

            The presentation stays pinned to the revision it serves: sync does not install the \
            revision rolled back from again, only a newer one (which ends the pin), until \
            storybridge unpin ID. Every rollback is recorded: storybridge sync --history ID. \
            The kept revision's files are read and checked against the manifest it was installed \
            with first: one that differs is refused (exit 65) and nothing changes. \
            While a sync runs (its lock is held), rollback waits for nothing and exits 75: a \
            revision being installed would otherwise replace the rolled-back one.
            """)

    @Argument(help: "The presentation id.")
    var id: Int

    @OptionGroup var library: LibraryOptions

    func run() throws {
        let store = try library.openLibrary()
        let lock: SyncLock
        do {
            lock = try SyncLock(file: SyncPaths(library.directory).lockFile)
        } catch {
            throw SyncExitStatus.fail("rollback", error)
        }
        defer { withExtendedLifetime(lock) {} }
        // The kept revision is served only if its files are still the ones it was installed with.
        do {
            if let target = try store.rollbackTarget(id: id), let difference = try DeckVerifier.check(folder: target.folder, in: store),
                !difference.isEmpty
            {
                throw CommandFailure(
                    "rollback refused: the kept revision \(target.revision) differs from its manifest: \(difference)",
                    status: CommandFailure.badInput)
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("cannot check the kept revision", error, status: CommandFailure.storage)
        }
        let started = ContinuousClock.now
        let outcome: RollbackOutcome
        do {
            outcome = try store.rollback(id: id)
        } catch {
            throw CommandFailure(error.description, status: error.exitStatus)
        }
        let took = (ContinuousClock.now - started).components
        let milliseconds = Double(took.seconds) * 1000 + Double(took.attoseconds) / 1e15
        Terminal.say(
            "presentation \(id): serving revision \(Self.label(outcome.toRevision, outcome.toPackageRevision)) again "
                + "(was \(Self.label(outcome.fromRevision, outcome.fromPackageRevision))), in \(String(format: "%.1f", milliseconds)) ms")
        let lifted = outcome.fromPackageRevision.map { "a package newer than revision \($0) is published or " } ?? ""
        Terminal.say("pinned until \(lifted)storybridge unpin \(id)")
    }

    static func label(_ revision: Int, _ packageRevision: Int?) -> String {
        packageRevision.map { "\(revision) (package revision \($0))" } ?? "\(revision)"
    }
}

/// `storybridge unpin ID`: let sync update a rolled-back presentation again.
struct UnpinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpin",
        abstract: "Let sync update a rolled-back presentation again.",
        discussion: """
            Lifts the pin storybridge rollback set. The served revision does not change now; the \
            next storybridge sync --content (or serve's own sync) installs what the service offers.
            """)

    @Argument(help: "The presentation id.")
    var id: Int

    @OptionGroup var library: LibraryOptions

    func run() throws {
        let store = try library.openLibrary()
        do {
            try store.unpin(id: id)
        } catch {
            throw CommandFailure(error.description, status: error.exitStatus)
        }
        Terminal.say("presentation \(id) is no longer pinned; the next sync installs what the service offers")
    }
}

extension RollbackError {
    /// The exit status: EX_DATAERR for a request that cannot be met, EX_IOERR for storage.
    var exitStatus: Int32 {
        switch self {
        case .notInstalled, .noEarlierRevision, .notPinned: return CommandFailure.badInput
        case .storage: return CommandFailure.storage
        }
    }
}
