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

    func openLibrary() throws -> LibraryStore {
        do {
            return try LibraryStore(directory: directory)
        } catch {
            throw ValidationError("cannot open the library in \(directory.root.path): \(error)")
        }
    }
}
