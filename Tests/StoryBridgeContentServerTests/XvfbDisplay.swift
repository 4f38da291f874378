import Foundation
import StoryBridgeScripts
import StoryBridgeTesting

/// A virtual X display for a test (Xvfb, no TCP listener): the display number is the one Xvfb
/// picks itself and writes to its standard output (`-displayfd 1`).
struct XvfbDisplay: Sendable {
    let process: LaunchedProcess
    /// `:N`.
    let name: String

    /// The Xvfb binary on `PATH`, if there is one.
    static var binary: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/Xvfb" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether Xvfb is installed.
    static var isInstalled: Bool { binary != nil }

    /// Starts a display of `width`×`height` at 24 bits.
    static func start(width: Int, height: Int) async throws -> XvfbDisplay {
        guard let binary else { throw KioskLabFailure("Xvfb is not installed") }
        let output = Pipe()
        let process = try await LaunchedProcess.launch(
            URL(fileURLWithPath: binary), arguments: ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"],
            output: .pipe(output), error: .discard)
        let text = await readUntil("\n", from: output)
        guard let number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.kill()
            throw KioskLabFailure("Xvfb gave no display number: \(text)")
        }
        return XvfbDisplay(process: process, name: ":\(number)")
    }

    /// Ends the display.
    func stop() {
        process.terminate()
    }
}
