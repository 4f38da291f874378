import Foundation
import StoryBridgeTesting

/// What a finished `storybridge` run printed and how it exited.
struct CLIResult: Sendable {
    var status: Int32
    var output: String
    var errors: String
}

/// Runs the built `storybridge` with `arguments` to completion. The process is waited for on a
/// thread of its own, so no cooperative thread blocks. With `asUnprivilegedUser` it runs as
/// `nobody` (through setpriv) when the tests run as root, so file permissions apply to it.
/// A `serve` that names no `--data-dir` gets a fresh one of its own (``withOwnDataFolder(_:)``).
func runStorybridge(
    _ arguments: [String], environment: [String: String]? = nil, asUnprivilegedUser: Bool = false
) async throws -> CLIResult {
    var arguments = arguments
    var ownDataFolder: URL?
    if arguments.first == "serve" { (arguments, ownDataFolder) = withOwnDataFolder(arguments) }
    defer { if let ownDataFolder { try? FileManager.default.removeItem(at: ownDataFolder) } }
    let binary = try storybridgeExecutable()
    let unprivileged = asUnprivilegedUser && getuid() == 0
    let output = Pipe()
    let errors = Pipe()
    let process = try await LaunchedProcess.launch(
        unprivileged ? URL(fileURLWithPath: "/usr/bin/setpriv") : binary,
        arguments: unprivileged ? ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path] + arguments : arguments,
        environment: environment, input: .discard, output: .pipe(output), error: .pipe(errors))
    let (out, err) = await readUntilExit(process, output: output, errors: errors)
    return CLIResult(
        status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
        errors: String(decoding: err, as: UTF8.self))
}

/// `arguments` of a `storybridge serve` child with `--data-dir` added when they name none, and the
/// folder added (`nil` when they named one). Without it the child used the default data folder,
/// test.sh's `XDG_DATA_HOME`, shared by every test of a target: serve children of parallel tests
/// opened one database, and one met another's lock while checking it at start-up.
func withOwnDataFolder(_ arguments: [String]) -> (arguments: [String], added: URL?) {
    guard !arguments.contains(where: { $0 == "--data-dir" || $0.hasPrefix("--data-dir=") }) else { return (arguments, nil) }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-serve-data-\(UUID().uuidString)")
    return (arguments + ["--data-dir", folder.path], folder)
}

/// Runs `storybridge test` on the script `text` makes for a delivery that `write` puts in a
/// temporary folder (the delivery's path given to `text`).
func runTestScript(delivery write: (URL) throws -> Void, _ text: (URL) -> String) async throws -> CLIResult {
    try await withScratchFolder("sb-cli") { folder in
        let delivery = folder.appendingPathComponent("delivery")
        try write(delivery)
        let script = folder.appendingPathComponent("script.yaml")
        try text(delivery).write(to: script, atomically: true, encoding: .utf8)
        return try await runStorybridge(["test", script.path])
    }
}

/// Runs `body` with a temporary folder holding a delivery twice: as a folder of zips
/// (`delivery/`, written by `folder`) and as a zip of zips (`delivery.zip`, written by `zip`).
func withDelivery(
    folder writeFolder: (URL) throws -> Void, zip writeZip: (URL) throws -> Void, _ body: (URL, URL, URL) async throws -> Void
) async throws {
    try await withScratchFolder("sb-cli") { folder in
        let zips = folder.appendingPathComponent("delivery")
        try writeFolder(zips)
        let zip = folder.appendingPathComponent("delivery.zip")
        try writeZip(zip)
        try await body(folder, zips, zip)
    }
}
