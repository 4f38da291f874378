import Foundation
import StoryBridgeTesting

/// A temporary folder for one test, deleted when `body` returns or throws.
func withTemporaryFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}

/// What a finished `storybridge` run printed and how it exited.
struct CLIResult: Sendable {
    var status: Int32
    var output: String
    var errors: String
}

/// Runs the built `storybridge` with `arguments` to completion. The process is waited for on a
/// thread of its own, so no cooperative thread blocks. With `asUnprivilegedUser` it runs as
/// `nobody` (through setpriv) when the tests run as root, so file permissions apply to it.
func runStorybridge(
    _ arguments: [String], environment: [String: String]? = nil, asUnprivilegedUser: Bool = false
) async throws -> CLIResult {
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
