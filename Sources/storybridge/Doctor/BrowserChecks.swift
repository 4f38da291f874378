import Foundation
import StoryBridgeScripts

/// Chromium (for the browser steps of `storybridge test`) and chromedriver of the same version.
enum BrowserChecks {
    static func run(explicitBrowser: String?) async -> [DoctorCheck] {
        let binary: String
        do {
            binary = try HeadlessChromium.locate(explicit: explicitBrowser)
        } catch {
            return [
                DoctorCheck(
                    subject: "Chromium", detail: "not found (\(error)); browser steps of 'storybridge test' cannot run",
                    outcome: .failed(fix: "apt-get install chromium chromium-driver"), required: false)
            ]
        }
        let chromiumVersion = await version(of: binary, prefix: "Chromium")
        let chromeVersion = chromiumVersion == nil ? await version(of: binary, prefix: "Google Chrome") : nil
        guard let browserVersion = chromiumVersion ?? chromeVersion else {
            return [
                DoctorCheck(
                    subject: "Chromium", detail: "\(binary) does not answer --version",
                    outcome: .failed(fix: "apt-get install --reinstall chromium"), required: false)
            ]
        }
        var checks = [DoctorCheck(subject: "Chromium", detail: "\(browserVersion) (\(binary))", outcome: .ok, required: false)]
        guard let driver = onPath("chromedriver") else {
            checks.append(
                DoctorCheck(
                    subject: "chromedriver", detail: "not found on PATH (WebDriver tools need it beside Chromium)",
                    outcome: .failed(fix: "apt-get install chromium-driver"), required: false))
            return checks
        }
        guard let driverVersion = await version(of: driver, prefix: "ChromeDriver") else {
            checks.append(
                DoctorCheck(
                    subject: "chromedriver", detail: "\(driver) does not answer --version",
                    outcome: .failed(fix: "apt-get install --reinstall chromium-driver"), required: false))
            return checks
        }
        if driverVersion == browserVersion {
            checks.append(DoctorCheck(subject: "chromedriver", detail: "\(driverVersion), same as Chromium", outcome: .ok, required: false))
        } else {
            checks.append(
                DoctorCheck(
                    subject: "chromedriver", detail: "\(driverVersion) (\(driver)) differs from Chromium \(browserVersion)",
                    outcome: .failed(fix: "apt-get install --only-upgrade chromium chromium-driver"), required: false))
        }
        return checks
    }

    /// The dotted version a `--version` line starting with `prefix` names, e.g. "156.0.8078.79".
    static func version(of binary: String, prefix: String) async -> String? {
        guard let output = await ProgramOutput.run(binary, ["--version"]) else { return nil }
        let line = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard line.hasPrefix(prefix) else { return nil }
        return line.dropFirst(prefix.count).split(separator: " ").first.map(String.init)
    }

    /// The first executable named `name` on `PATH`.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// Runs a program to completion and returns what it printed, waiting on a thread of its own.
enum ProgramOutput {
    static func run(_ binary: String, _ arguments: [String]) async -> String? {
        let output = Pipe()
        guard
            let process = try? await LaunchedProcess.launch(
                URL(fileURLWithPath: binary), arguments: arguments, input: .discard, output: .pipe(output), error: .discard)
        else { return nil }
        let data = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: output.fileHandleForReading.readDataToEndOfFile()) }
        }
        return await process.exit() == 0 && process.terminationReason == .exit ? String(decoding: data, as: UTF8.self) : nil
    }
}
