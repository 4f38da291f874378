import ArgumentParser
import Foundation
import StoryBridge
import StoryBridgeContentServer

#if canImport(Glibc)
    import Glibc
#endif

/// `storybridge content-server device add|list|revoke`: the fleet's device tokens
/// (docs/design/FLEET.md §5.2), kept in `content-server/hub.sqlite`. They work whether the server
/// runs or not; a running hub sees a revoke within a second.
struct ContentServerDeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Add, list and revoke the devices (kiosks and Prometheus scrapers) that may talk to the fleet hub.",
        discussion: """
            A device token is `sbd_` + the device id + `_` + a secret; the hub keeps only SHA-256 of \
            the secret, so a token is shown once, by `add`, and cannot be shown again (revoke the \
            device and add it anew). Exit statuses: 65 bad input (a name or label not allowed, a name \
            taken, an unknown device), 73 --token-out exists, 74 the hub database cannot be used.
            """,
        subcommands: [Add.self, List.self, Revoke.self])

    /// Runs `body` on the data folder's device store, turning a refusal into the command's message and status.
    static func perform<T>(_ library: LibraryOptions, _ body: (DeviceStore) throws(HubStoreError) -> T) throws(CommandFailure) -> T {
        do {
            return try body(DeviceStore(database: HubDatabase(directory: library.directory)))
        } catch {
            throw CommandFailure(error.description, status: error.exitStatus)
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a device and show its token once (or write it to --token-out).")

        @Argument(help: "The device's name (1 to 64 printable characters, unique among devices not revoked).")
        var name: String

        @Option(
            name: .customLong("label"),
            help: "A hub-side label KEY=VALUE (repeatable; merged over the kiosk's own labels, the hub's win).")
        var labels: [String] = []

        @Flag(help: "A token for Prometheus (service discovery and metrics), not for a kiosk.")
        var scraper = false

        @Option(help: "Write the token to this new file (mode 0600) instead of printing it.")
        var tokenOut: String?

        @OptionGroup(title: "Library")
        var library: LibraryOptions

        func run() throws {
            let parsedLabels: [String: String]
            do {
                try DeviceStore.check(name: name)
                parsedLabels = try DeviceStore.parse(labels: labels, what: "--label")
            } catch {
                throw CommandFailure(error.description, status: error.exitStatus)
            }
            // The file is made before the device: a --token-out that exists adds nothing.
            let descriptor = try tokenOut.map(Self.createTokenFile)
            let added: (device: Device, token: DeviceToken)
            do {
                added = try ContentServerDeviceCommand.perform(library) { store throws(HubStoreError) in
                    try store.add(name: name, labels: parsedLabels, kind: scraper ? .scraper : .kiosk)
                }
            } catch {
                if let descriptor, let tokenOut {
                    close(descriptor)
                    unlink(tokenOut)
                }
                throw error
            }
            let kind = scraper ? "scraper" : "device"
            if let descriptor, let tokenOut {
                let bytes = Array((added.token.text + "\n").utf8)
                let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
                let synced = fsync(descriptor) == 0
                close(descriptor)
                guard written == bytes.count, synced else {
                    throw CommandFailure(
                        "\(kind) \(added.device.id) \"\(name)\" was added, but its token could not be written to \(tokenOut); revoke it and add it again",
                        status: CommandFailure.storage)
                }
                print("\(kind) \(added.device.id) \"\(name)\" added; its token is in \(tokenOut) (mode 0600)")
            } else {
                print("\(kind) \(added.device.id) \"\(name)\" added; its token (shown once):")
                print(added.token.text)
            }
        }

        /// A new file, 0600, never over an existing one.
        private static func createTokenFile(_ path: String) throws(CommandFailure) -> Int32 {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                if errno == EEXIST {
                    throw CommandFailure("--token-out \(path) exists; the token is only written to a new file", status: 73)
                }
                throw CommandFailure(
                    "cannot create --token-out \(path): \(String(cString: strerror(errno)))", status: CommandFailure.storage)
            }
            fchmod(descriptor, 0o600)
            return descriptor
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the devices: id, name, kind, state, since, host id, labels.")

        @Flag(help: "Print a JSON array instead of the table.")
        var json = false

        @OptionGroup(title: "Library")
        var library: LibraryOptions

        func run() throws {
            let devices = try ContentServerDeviceCommand.perform(library) { store throws(HubStoreError) in try store.list() }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                encoder.dateEncodingStrategy = .iso8601
                print(String(decoding: try encoder.encode(devices), as: UTF8.self))
                return
            }
            guard !devices.isEmpty else {
                print("No devices yet: `storybridge content-server device add NAME` adds one.")
                return
            }
            let formatter = ISO8601DateFormatter()
            let rows =
                [["ID", "NAME", "KIND", "STATE", "SINCE", "HOST ID", "LABELS"]]
                + devices.map { device in
                    [
                        device.id, device.name, device.kind.rawValue, device.state, formatter.string(from: device.since),
                        device.hostId.map(HostKey.grouped) ?? "-",
                        device.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","),
                    ]
                }
            let widths = (0..<7).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let cells = row.enumerated().map { index, cell in
                    index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }
                print(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a device: its token is refused at once, and a running hub closes its connection within a second.")

        @Argument(help: "The device's name (among devices not revoked) or its id (d_…).")
        var device: String

        @OptionGroup(title: "Library")
        var library: LibraryOptions

        func run() throws {
            let revoked = try ContentServerDeviceCommand.perform(library) { store throws(HubStoreError) in try store.revoke(device) }
            print("device \(revoked.id) \"\(revoked.name)\" revoked")
        }
    }
}
