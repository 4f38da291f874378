import ArgumentParser
import Foundation
import StoryBridge

/// `storybridge trust add|show`: the content service's root key this kiosk pins (docs/design/TRUST.md 2.1).
struct TrustCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Pin the content service's root key, and show what this kiosk trusts.",
        discussion: """
            With a root pinned, `storybridge sync` checks each package of a service that signs its \
            packages against its signed manifest. The root's file is `root.pub.json` from the \
            content server (`content-server keys init` prints its path). The config key \
            trust.rootFile, when set, names the pinned root instead of trust/root.pub.json in the data \
            folder (a root-owned file there cannot be swapped by the kiosk's user).
            """,
        subcommands: [Add.self, Show.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pin the root key of a root.pub.json file (exit 78 if a different root is pinned and --replace is not given).")

        @Argument(help: "The root's public key file (root.pub.json).")
        var file: String

        @Flag(help: "Replace a different pinned root (packages signed under the old root are refused from then on).")
        var replace = false

        @Option(name: .customLong("config"), help: "A JSON config file (its trust.rootFile wins over the data folder).")
        var configFile: String?

        @OptionGroup(title: "Library")
        var library: LibraryOptions

        func run() throws {
            let store = KioskTrustStore(directory: library.directory, rootFile: try TrustCommand.rootFile(configFile))
            do throws(KioskTrustError) {
                let (key, outcome) = try store.pin(rootAt: file, replace: replace)
                switch outcome {
                case .pinned: print("Pinned root \(key.keyId) (\(store.rootFile.path)).")
                case .unchanged: print("Root \(key.keyId) is pinned already.")
                case .replaced(let previous): print("Pinned root \(key.keyId) in place of \(previous) (\(store.rootFile.path)).")
                }
            } catch {
                throw CommandFailure(error.description, status: error.exitStatus)
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The pinned root's key id, and the held keys document's version, expiry, signing and revoked keys.")

        @Flag(help: "Print JSON.")
        var json = false

        @Option(name: .customLong("config"), help: "A JSON config file (its trust.rootFile wins over the data folder).")
        var configFile: String?

        @OptionGroup(title: "Library")
        var library: LibraryOptions

        func run() throws {
            let store = KioskTrustStore(directory: library.directory, rootFile: try TrustCommand.rootFile(configFile))
            let root: TrustPublicKey?
            let keys: KeysDocument?
            do throws(TrustFailure) {
                root = try store.pinnedRoot()
                if let root { keys = try store.heldKeys(root: root)?.body } else { keys = nil }
            } catch {
                throw CommandFailure(error.description, status: CommandFailure.badInput)
            }
            if json {
                var members: [String: JSONValue] = [
                    "root": root.map { .string($0.keyId) } ?? .null, "rootFile": .string(store.rootFile.path),
                ]
                if let keys {
                    members["keys"] = [
                        "version": .int(keys.version), "expires": .string(TrustTime.format(keys.expires)),
                        "signingKeys": .array(keys.signingKeys.map { .string($0.key.keyId) }),
                        "revoked": .array(keys.revoked.map { .string($0.keyId) }),
                    ]
                }
                print(JSONValue.object(members).jsonString())
                return
            }
            guard let root else {
                print("No root pinned: packages are installed unsigned (their hashes recorded). Pin one with `storybridge trust add FILE`.")
                return
            }
            print("Pinned root: \(root.keyId) (\(store.rootFile.path))")
            guard let keys else {
                print("Keys document: none held yet (the next sync fetches it)")
                return
            }
            print("Keys document version \(keys.version), expires \(TrustTime.format(keys.expires))")
            print("Signing keys: \(keys.signingKeys.isEmpty ? "none" : keys.signingKeys.map(\.key.keyId).joined(separator: ", "))")
            print("Revoked keys: \(keys.revoked.isEmpty ? "none" : keys.revoked.map(\.keyId).joined(separator: ", "))")
        }
    }

    /// The config file's `trust.rootFile`, if a config file is given and sets it.
    static func rootFile(_ configFile: String?) throws -> String? {
        try settings(configFile).rootFile
    }

    /// The config file's `trust` section (empty without a config file).
    static func settings(_ configFile: String?) throws -> TrustSettings {
        guard let configFile else { return TrustSettings() }
        do {
            return try HostConfiguration.load(from: URL(fileURLWithPath: configFile)).trust
        } catch {
            throw ValidationError(error.description)
        }
    }
}
