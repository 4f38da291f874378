import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeContentServer

/// `storybridge content-server keys`: the keys that sign packages' manifests (docs/design/TRUST.md 1.6).
struct ContentServerKeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make and manage the keys that sign the content server's package manifests.",
        discussion: """
            `init` makes the root key (written only to --root-out, never into the data folder), a first \
            signing key and keys.json in content-server/trust/; from then on the server signs a manifest \
            of each package. Give kiosks content-server/trust/root.pub.json (`storybridge trust add`). \
            The root's private key is read from --root each time it is needed (add-signing, revoke). \
            Offline signing (`init --offline`): the server leaves each manifest's body in \
            content-server/trust/unsigned/; copy them to the signing machine, run `keys sign`, and copy \
            the results into content-server/trust/manifests/. \
            Exit statuses: 65 bad input, 66 nothing to sign, 73 a file that must be new exists, 74 storage, \
            78 a key or folder that does not fit.
            """,
        subcommands: [Init.self, NewSigning.self, AddSigning.self, Revoke.self, Sign.self, Status.self])

    /// Runs `body`, turning a refusal into the command's message and exit status.
    static func perform<T>(_ body: () throws(ContentKeysError) -> T) throws(CommandFailure) -> T {
        do {
            return try body()
        } catch {
            throw CommandFailure(error.description, status: error.exitStatus)
        }
    }

    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the root key, a first signing key, root.pub.json and keys.json version 1.")

        @Option(help: "Where to write the root's private key (a new file, 0600; keep it off the server).")
        var rootOut: String

        @Flag(help: "Offline signing: make no signing key here (add one made by `keys new-signing` with `add-signing --public`).")
        var offline = false

        @OptionGroup(title: "Library")
        var library: LibraryOptions

        func run() throws {
            let keys = ContentServerKeys(folder: ContentTrustFolder(dataDirectory: library.directory))
            let made = try ContentServerKeysCommand.perform { () throws(ContentKeysError) in
                try keys.initialise(rootOut: rootOut, offline: offline)
            }
            print("Root key \(made.rootKeyId) written to \(rootOut) (keep it off this machine).")
            if let signing = made.signingKeyId {
                print("Signing key \(signing) kept in \(keys.folder.signingKeys.path).")
            } else {
                print("Offline signing: add a key made by `keys new-signing` with `keys add-signing --public FILE`.")
            }
            print("Give kiosks \(made.rootPublicKeyFile.path) (storybridge trust add FILE).")
        }
    }

    struct NewSigning: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-signing", abstract: "Make a signing key pair outside the server (for offline signing).")

        @Option(help: "Where to write the private key (a new file, 0600); the public key goes beside it as NAME.pub.json.")
        var out: String

        func run() throws {
            let made = try ContentServerKeysCommand.perform { () throws(ContentKeysError) in
                try ContentServerKeys.newSigningKey(out: out)
            }
            print("Signing key \(made.keyId) written to \(out); its public key: \(made.publicKeyFile)")
        }
    }

    struct AddSigning: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-signing", abstract: "Add a signing key to the keys document (a new version, signed by the root).")

        @Option(help: "The root's private key file (as written by `keys init --root-out`).")
        var root: String

        @Flag(help: "The key was made elsewhere: give its public key file with --public.")
        var offline = false

        @Option(name: .customLong("public"), help: "With --offline: the public key file `keys new-signing` wrote.")
        var publicKey: String?

        @OptionGroup(title: "Library")
        var library: LibraryOptions

        func validate() throws {
            if offline != (publicKey != nil) { throw ValidationError("--offline and --public go together") }
        }

        func run() throws {
            let keys = ContentServerKeys(folder: ContentTrustFolder(dataDirectory: library.directory))
            let added = try ContentServerKeysCommand.perform { () throws(ContentKeysError) in
                try keys.addSigningKey(rootPath: root, publicKeyFile: publicKey)
            }
            print("Signing key \(added.keyId) added; keys document version \(added.version).")
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a signing key: kiosks refuse its manifests, whenever they were signed.")

        @Argument(help: "The key id to revoke (32 hex digits; `keys status` lists them).")
        var keyId: String

        @Option(help: "The root's private key file.")
        var root: String

        @Option(help: "Why (kept in the keys document).")
        var reason: String

        @OptionGroup(title: "Library")
        var library: LibraryOptions

        func run() throws {
            let keys = ContentServerKeys(folder: ContentTrustFolder(dataDirectory: library.directory))
            let version = try ContentServerKeysCommand.perform { () throws(ContentKeysError) in
                try keys.revoke(keyId: keyId, rootPath: root, reason: reason)
            }
            print("Signing key \(keyId) revoked; keys document version \(version).")
        }
    }

    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign the manifest bodies of an offline-signing server with a signing key kept elsewhere.",
            discussion: """
                Run on the signing machine. --in holds the bodies copied from the server's \
                content-server/trust/unsigned/; each is signed with --key into --out under the same name. \
                Copy --out's files into the server's content-server/trust/manifests/: it serves each once \
                its signature verifies against keys.json. With --keys (a copy of the server's keys.json) \
                the key must be one of its signing keys, not revoked, and each manifest is signed under \
                that document's version. Every body is checked first: one that is not a manifest, has \
                expired or names a newer keys document stops the run before anything is written.
                """)

        @Option(help: "The signing key's private key file (made by `keys new-signing`; 0600).")
        var key: String

        @Option(name: .customLong("in"), help: "The folder of manifest bodies (*.json) copied from the server's unsigned/.")
        var input: String

        @Option(help: "The folder the signed manifests are written to (made when missing).")
        var out: String

        @Option(help: "A copy of the server's keys.json: check the key against it and sign under its version.")
        var keys: String?

        func run() throws {
            let signing = OfflineSigning(keyPath: key, inputFolder: input, outputFolder: out, keysDocumentPath: keys)
            let signed = try ContentServerKeysCommand.perform { () throws(ContentKeysError) in try signing.run() }
            let under = signed.keysVersion.map { " under keys document version \($0)" } ?? " (key not checked: no --keys)"
            print(
                "Signed \(signed.files.count) manifest\(signed.files.count == 1 ? "" : "s") with key \(signed.keyId)\(under) into \(out):")
            for file in signed.files { print("  \(file)") }
            print("Copy them into the server's content-server/trust/manifests/.")
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The keys document's version and expiry, its keys, and the manifests by state.")

        @Flag(help: "Print JSON.")
        var json = false

        @OptionGroup(title: "Library")
        var library: LibraryOptions

        func run() throws {
            let keys = ContentServerKeys(folder: ContentTrustFolder(dataDirectory: library.directory))
            let status = try ContentServerKeysCommand.perform { () throws(ContentKeysError) in try keys.status() }
            if json {
                print(status.json.jsonString())
                return
            }
            print("Keys document version \(status.keys.version), expires \(TrustTime.format(status.keys.expires))")
            print("Root key: \(status.keys.root.keyId)")
            print("Signing keys:\(status.keys.signingKeys.isEmpty ? " none" : "")")
            for entry in status.keys.signingKeys {
                let place = status.onlineKeyIds.contains(entry.key.keyId) ? "online" : "offline"
                print("  \(entry.key.keyId) since \(TrustTime.format(entry.since)) (\(place))")
            }
            print("Revoked keys:\(status.keys.revoked.isEmpty ? " none" : "")")
            for entry in status.keys.revoked {
                print("  \(entry.keyId) revoked \(TrustTime.format(entry.revokedAt)): \(entry.reason)")
            }
            print("Manifests: \(status.signedManifests) signed, \(status.awaitingSignature) awaiting a signature")
        }
    }
}
