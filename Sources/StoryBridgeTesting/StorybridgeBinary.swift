import Foundation

/// Runs the built `storybridge` with `arguments` and waits for it to exit: its exit status and its
/// standard output and error together (read by ``readUntilExit(_:output:errors:limit:)``, so a
/// browser it started cannot hold the test up).
package func runStorybridgeToExit(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    let output = Pipe()
    let errors = Pipe()
    let process = try await LaunchedProcess.launch(
        try storybridgeExecutable(), arguments: arguments, output: .pipe(output), error: .pipe(errors))
    let (out, err) = await readUntilExit(process, output: output, errors: errors)
    return (process.terminationStatus, String(decoding: out + err, as: UTF8.self))
}

/// The built `storybridge` executable: next to the test bundle, else in the checkout's
/// `.build/debug`.
package func storybridgeExecutable() throws -> URL {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    if folder.lastPathComponent.hasSuffix(".xctest") { folder = folder.deletingLastPathComponent() }
    let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    for candidate in [folder, checkout.appendingPathComponent(".build/debug")] {
        let binary = candidate.appendingPathComponent("storybridge")
        if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
    }
    throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "storybridge (run swift build first)"])
}
