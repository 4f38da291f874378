import ArgumentParser
import Foundation
import StoryBridge

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check what this machine needs to run storybridge, and say how to fix what is missing.",
        discussion: """
            Checks Chromium and its version (and chromedriver of the same version) for the browser steps \
            of 'storybridge test'; the data folder (there or creatable, writable, free space); the SQLite \
            and minizip libraries as loaded (their versions and files); a port on 127.0.0.1 for serve (the \
            configured one, else 8080); the host id (the fingerprint of the host key in the data folder, \
            made here when the folder exists and has none); and, when an upload collector is configured, whether it answers. \
            Each failed check prints the command that fixes it. Exit status: 0 when every required \
            check passes (Chromium and chromedriver are only needed for browser steps: a problem with \
            them is a warning), 1 when a required check fails. With --url, also asks that running \
            serve for GET /__storybridge/health: unhealthy (503, with its reasons) or no answer fails. \
            With --json, prints one JSON object instead (version, ready, hostId, and each check's \
            subject, status, detail, required and fix), with the same exit status.
            """)

    @Option(help: "The Chromium binary to check (default: $STORYBRIDGE_CHROMIUM, then chromium on PATH).")
    var browser: String?

    @Option(help: "The port serve would listen on (default: the config's server.port, else 8080; 0: any free port).")
    var port: Int?

    @Option(help: "A running serve to ask for its health (GET URL/__storybridge/health): http://127.0.0.1:8080.")
    var url: String?

    @Flag(help: "Print the report as one JSON object (for monitoring and provisioning scripts).")
    var json = false

    @OptionGroup var identity: IdentityOptions
    @OptionGroup var upload: UploadOptions
    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let configuration = try identity.resolve()
        let uploadSettings = try upload.resolve(configuration.upload)
        let servePort = port ?? configuration.server.port ?? 8080
        guard (0...65535).contains(servePort) else { throw ValidationError("--port must be between 0 and 65535") }
        var checks = await BrowserChecks.run(explicitBrowser: browser)
        checks.append(DataFolderCheck.run(library.directory))
        checks.append(HostIdCheck.run(library.directory))
        checks += LibraryChecks.run()
        checks.append(NetworkChecks.port(servePort))
        checks.append(
            await NetworkChecks.collector(
                uploadSettings, configSource: identity.configFile.map { "'\($0)'" } ?? "--upload-endpoint"))
        if let url { checks += await ServeHealthCheck.run(url: url) }
        let failedRequired = checks.filter(\.failedRequired).count
        let warnings = checks.filter { if case .failed = $0.outcome { !$0.required } else { false } }.count
        if json {
            var report: [String: JSONValue] = [
                "version": .string(StoryBridgeVersion.current), "ready": .bool(failedRequired == 0),
                "failedRequired": .int(failedRequired), "warnings": .int(warnings), "checks": .array(checks.map(\.json)),
                "hostId": .null,
            ]
            for case let named? in checks.map(\.value) { report[named.name] = .string(named.value) }
            Terminal.say(JSONValue.object(report).jsonString())
            if failedRequired > 0 { throw ExitCode(1) }
            return
        }
        Terminal.say("storybridge \(StoryBridgeVersion.current) doctor")
        for check in checks { Terminal.say(check.lines.joined(separator: "\n")) }
        if failedRequired > 0 {
            Terminal.say("doctor: \(failedRequired) required check(s) failed; run the fix lines above")
            throw ExitCode(1)
        }
        Terminal.say(
            warnings > 0
                ? "doctor: ready, with \(warnings) warning(s) (see the fix lines above)" : "doctor: everything storybridge needs is here")
    }
}
