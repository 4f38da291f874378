import ArgumentParser
import Foundation
import StoryBridge

/// `--data-dir`, shared by the commands that use the library.
struct LibraryOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Folder for the database and installed presentations.",
            discussion: "Default: $STORYBRIDGE_DATA_DIR, else $XDG_DATA_HOME/storybridge, else ~/.local/share/storybridge."))
    var dataDir: String?

    var directory: DataDirectory {
        dataDir.map { DataDirectory(URL(fileURLWithPath: $0)) } ?? .default()
    }

    /// The library of the data folder; a failure says which folder or file is wrong and how.
    func openLibrary() throws(CommandFailure) -> LibraryStore {
        do {
            return try LibraryStore(directory: directory)
        } catch let failure as SystemFailure {
            throw CommandFailure(failure.description, status: CommandFailure.storage)
        } catch {
            throw CommandFailure("cannot open the library in '\(directory.root.path)'", error, status: CommandFailure.storage)
        }
    }

    /// The data folder, created if missing, and its database.
    func openDatabase() throws(CommandFailure) -> StoryBridgeDatabase {
        try openDatabaseChecked().database
    }

    /// The data folder, created if missing, its database, and the damaged database start-up moved
    /// aside if it did (the audit log's start-up checks continue its chain).
    func openDatabaseChecked() throws(CommandFailure) -> (database: StoryBridgeDatabase, movedAside: MovedAsideDatabase?) {
        do {
            try directory.prepare()
        } catch {
            throw CommandFailure(error.description, status: CommandFailure.storage)
        }
        do {
            // A damaged database is moved aside (and said so) rather than stopping the host twice.
            let opened = try StoryBridgeDatabase.openChecked(in: directory)
            if let movedAside = opened.movedAside { Terminal.warn("warning: \(movedAside)") }
            return opened
        } catch {
            throw CommandFailure(error.description, status: CommandFailure.storage)
        }
    }

    /// This machine's host key (docs/design/FLEET.md §2), made at the first call; the data folder
    /// must exist (``openDatabase()`` makes it). A damaged or too-open key file stops the command
    /// (exit status 78) naming the file.
    func hostKey() throws(CommandFailure) -> HostKey {
        do {
            return try HostKey.loadOrCreate(in: directory)
        } catch {
            throw CommandFailure(error.description, status: 78)
        }
    }
}
