import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeSync

/// `storybridge verify [ID...] [--json] [--release ID]`: every file of the installed decks read
/// again and checked against the manifest they were installed with (docs/design/TRUST.md 3.1).
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check installed presentations' files against their manifests; quarantine a deck whose files differ.",
        discussion: """
            Reads every file of each installed presentation (all when no id is given) and compares \
            it with the manifest recorded when it was installed: signed by the content service, or \
            the hashes an unsigned install recorded. Prints per deck `17 rev 14 signed (key 5d41…, \
            expires …): ok`, or the files changed, missing and added. A deck whose files differ is \
            quarantined (health lists it; the next sync downloads it again in full); a signed \
            manifest whose key was revoked since is reported `revoked key`, not quarantined. A deck \
            installed before signed packages has its first hashes recorded now. \
            --release ID clears a quarantine once the files are restored (it verifies first). \
            Exit status: 0 all ok; 65 a deck differs (or --release found it still differs); 66 an id \
            is not installed; 74 storage; 75 a sync holds the data folder's lock.
            """)

    @Argument(help: "The presentation ids (default: every installed presentation).")
    var ids: [Int] = []

    @Flag(help: "Print one JSON object per deck in an array: id, revision, status, manifestHash, changed, missing, added, seconds.")
    var json = false

    @Option(name: .customLong("release"), help: ArgumentHelp("Clear the quarantine of ID after verifying its files.", valueName: "ID"))
    var release: Int?

    @Option(name: .customLong("config"), help: "A JSON config file (its trust.rootFile names the pinned root).")
    var configFile: String?

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        if release != nil && !ids.isEmpty { throw ValidationError("--release takes one id; run it without other ids") }
    }

    func run() async throws {
        let store = try library.openLibrary()
        let lock: SyncLock
        do {
            lock = try SyncLock(file: SyncPaths(library.directory).lockFile)
        } catch {
            throw SyncExitStatus.fail("verify", error)
        }
        defer { withExtendedLifetime(lock) {} }
        let trust = KioskTrustStore(directory: library.directory, rootFile: try TrustCommand.rootFile(configFile))
        var keys: KeysDocument?
        do throws(TrustFailure) {
            if let root = try trust.pinnedRoot() { keys = try trust.heldKeys(root: root)?.body }
        } catch {
            throw CommandFailure(error.description, status: CommandFailure.badInput)
        }
        let verifier = DeckVerifier(library: store, keys: keys)
        if let release {
            do throws(DeckVerifyError) {
                let checked = try await verifier.release(id: release)
                print(json ? JSONValue.array([checked.json]).jsonString() : "presentation \(release): files verified, quarantine released")
            } catch {
                throw CommandFailure(error.description, status: error.exitStatus)
            }
            return
        }
        var checked: [DeckVerification] = []
        var notInstalled = false
        let wanted: [Int]
        do throws(DeckVerifyError) {
            wanted = ids.isEmpty ? try await verifier.installedIds() : ids
        } catch {
            throw CommandFailure(error.description, status: error.exitStatus)
        }
        for id in wanted {
            do throws(DeckVerifyError) {
                let result = try await verifier.verify(id: id)
                checked.append(result)
                if !json { for line in result.lines { print(line) } }
            } catch .notInstalled {
                notInstalled = true
                Terminal.warn("storybridge verify: no presentation with id \(id) is installed")
            } catch {
                throw CommandFailure(error.description, status: error.exitStatus)
            }
        }
        if json { print(JSONValue.array(checked.map(\.json)).jsonString()) }
        if notInstalled { throw ExitCode(66) }
        if checked.contains(where: { $0.outcome.fails }) { throw ExitCode(65) }
    }
}
