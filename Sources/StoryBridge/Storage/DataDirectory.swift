import Foundation

/// Where storybridge keeps its state: the SQLite database and installed presentations.
///
/// Default: `$STORYBRIDGE_DATA_DIR`, else `$XDG_DATA_HOME/storybridge`, else
/// `~/.local/share/storybridge`. The CLI's `--data-dir` overrides it.
public struct DataDirectory: Sendable, Hashable {
    /// The folder itself.
    public let root: URL

    /// A data folder at `root` (created by ``prepare()``, not here).
    public init(_ root: URL) {
        self.root = root.standardizedFileURL
    }

    /// The default location for this user.
    public static func `default`(environment: [String: String] = ProcessInfo.processInfo.environment) -> DataDirectory {
        if let explicit = environment["STORYBRIDGE_DATA_DIR"], !explicit.isEmpty {
            return DataDirectory(URL(fileURLWithPath: explicit))
        }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return DataDirectory(URL(fileURLWithPath: xdg).appendingPathComponent("storybridge"))
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return DataDirectory(URL(fileURLWithPath: home).appendingPathComponent(".local/share/storybridge"))
    }

    /// The SQLite database file.
    public var database: URL { root.appendingPathComponent("storybridge.sqlite") }
    /// Installed presentations, one folder each.
    public var presentations: URL { root.appendingPathComponent("presentations") }
    /// Packages being unpacked; emptied at start-up.
    public var staging: URL { root.appendingPathComponent("staging") }

    /// Creates the folders; a failure names the folder and says what is wrong with it.
    public func prepare() throws(SystemFailure) {
        for folder in [root, presentations, staging] {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else { throw SystemFailure("cannot use the data folder", folder.path, .notAFolder) }
                continue
            }
            // A file where a folder above it should be: name it, as createDirectory's error does not.
            var above = folder.deletingLastPathComponent()
            while above.path != "/" && !FileManager.default.fileExists(atPath: above.path) { above.deleteLastPathComponent() }
            if FileManager.default.fileExists(atPath: above.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw SystemFailure("cannot create the data folder inside", above.path, .notAFolder)
            }
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw SystemFailure("cannot create the data folder", folder.path, error: error)
            }
        }
    }
}
