import Foundation

/// A kiosk's trust files (docs/design/TRUST.md 2.1): the pinned root, `trust/root.pub.json` in
/// the data folder unless the config's `trust.rootFile` names another file (which then wins), and
/// `trust/keys.json`, the newest keys document verified against it. Read at each run's start;
/// nothing is cached across runs.
package struct KioskTrustStore: Sendable {
    /// `trust/` in the data folder (mode 0700).
    package let folder: URL
    /// `trust.rootFile` of the config, when set.
    package let configuredRootFile: URL?

    package init(directory: DataDirectory, rootFile: String? = nil) {
        folder = directory.root.appendingPathComponent("trust")
        configuredRootFile = rootFile.map { URL(fileURLWithPath: $0) }
    }

    /// The file the pinned root is read from.
    package var rootFile: URL { configuredRootFile ?? folder.appendingPathComponent("root.pub.json") }
    /// The held keys document.
    package var keysFile: URL { folder.appendingPathComponent("keys.json") }

    /// The pinned root, or `nil` when none is pinned (the kiosk handles packages as unsigned).
    package func pinnedRoot() throws(TrustFailure) -> TrustPublicKey? {
        guard FileManager.default.fileExists(atPath: rootFile.path) else {
            if configuredRootFile != nil {
                throw .keyFileUnusable(path: rootFile.path, reason: "no such file (config key trust.rootFile)")
            }
            return nil
        }
        return try TrustKeyFile.readPublicKey(at: rootFile.path)
    }

    /// What pinning did.
    package enum Pinned: Sendable, Equatable {
        /// The root was pinned where none was.
        case pinned
        /// The same root was pinned already: nothing changed.
        case unchanged
        /// A different root was replaced (`--replace`); the held keys document was dropped with it.
        case replaced(previous: String)
    }

    /// Pins the root of the public key file `path` (`storybridge trust add`). Refuses when the
    /// config names the root file, and to replace a different pinned root unless `replace`.
    package func pin(rootAt path: String, replace: Bool) throws(KioskTrustError) -> (key: TrustPublicKey, outcome: Pinned) {
        let key: TrustPublicKey
        do throws(TrustFailure) {
            key = try TrustKeyFile.readPublicKey(at: path)
        } catch {
            throw .unreadable(error)
        }
        if let configuredRootFile { throw .configuredRootFile(configuredRootFile.path) }
        let current: TrustPublicKey?
        do throws(TrustFailure) {
            current = try pinnedRoot()
        } catch {
            throw .storage(error)
        }
        if current == key { return (key, .unchanged) }
        if let current, !replace { throw .differentRootPinned(current: current.keyId, offered: key.keyId) }
        do throws(TrustFailure) {
            try TrustFileIO.makePrivateFolder(folder.path)
            try TrustFileIO.replace(TrustKeyFile.publicKeyText(key), at: rootFile.path)
            // The held keys document was signed by the old root: it means nothing under the new one.
            if current != nil { try? FileManager.default.removeItem(at: keysFile) }
        } catch {
            throw .storage(error)
        }
        return (key, current.map { .replaced(previous: $0.keyId) } ?? .pinned)
    }

    /// The held keys document, re-verified against `root`; `nil` when there is none.
    package func heldKeys(root: TrustPublicKey) throws(TrustFailure) -> SignedKeysDocument? {
        guard FileManager.default.fileExists(atPath: keysFile.path) else { return nil }
        let (bytes, _) = try TrustFileIO.read(keysFile.path)
        let document = try SignedKeysDocument.parse(bytes)
        try document.verify(pinnedRoot: root)
        return document
    }

    /// Stores `document` as the held keys document (write, fsync, rename).
    package func hold(_ document: SignedKeysDocument) throws(TrustFailure) {
        try TrustFileIO.makePrivateFolder(folder.path)
        try TrustFileIO.replace(try document.encoded(), at: keysFile.path)
    }
}

/// Why `storybridge trust add` refused, with its exit status (65 bad input, 74 storage, 78 configuration).
package enum KioskTrustError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file given is not a root public key file.
    case unreadable(TrustFailure)
    /// The config's `trust.rootFile` names the root: edit that file instead.
    case configuredRootFile(String)
    /// A different root is pinned and `--replace` was not given.
    case differentRootPinned(current: String, offered: String)
    /// The trust folder could not be written.
    case storage(TrustFailure)

    package var description: String {
        switch self {
        case .unreadable(let failure): failure.description
        case .configuredRootFile(let path):
            "the config's trust.rootFile names the pinned root (\(path)); replace that file instead, or remove trust.rootFile"
        case .differentRootPinned(let current, let offered):
            "a different root (\(current)) is pinned; pinning \(offered) would refuse every package its keys signed. Give --replace if that is meant"
        case .storage(let failure): failure.description
        }
    }

    /// The exit status of `trust add` failing so.
    package var exitStatus: Int32 {
        switch self {
        case .unreadable: 65
        case .configuredRootFile, .differentRootPinned: 78
        case .storage: 74
        }
    }
}
