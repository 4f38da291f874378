import ArgumentParser
import Foundation
import StoryBridge

/// Flags that set or override the `upload` section of the config file.
struct UploadOptions: ParsableArguments {
    @Option(help: "Collector base URL for analytics uploads (e.g. http://127.0.0.1:8090).")
    var uploadEndpoint: String?

    @Option(help: "Collector hub (default: storybridge).")
    var uploadHub: String?

    @Option(help: "Collector key.")
    var uploadKey: String?

    @Option(help: "Collector secret.")
    var uploadSecret: String?

    @Option(help: "Seconds between upload passes (default 10).")
    var uploadInterval: Double?

    @Option(help: "Records per upload pass (default 100).")
    var uploadBatchSize: Int?

    /// The upload settings from the config file with these flags on top; `nil` when nothing is configured.
    func resolve(_ configured: UploadSettings?) throws -> UploadSettings? {
        let anyFlag =
            [uploadEndpoint, uploadHub, uploadKey, uploadSecret].contains { $0 != nil }
            || uploadInterval != nil || uploadBatchSize != nil
        guard configured != nil || anyFlag else { return nil }
        var settings = configured ?? UploadSettings(endpoint: "", key: "", secret: "")
        if let uploadEndpoint { settings.endpoint = uploadEndpoint }
        if let uploadHub { settings.hub = uploadHub }
        if let uploadKey { settings.key = uploadKey }
        if let uploadSecret { settings.secret = uploadSecret }
        if let uploadInterval { settings.intervalSeconds = uploadInterval }
        if let uploadBatchSize { settings.batchSize = uploadBatchSize }
        if let problem = settings.problem { throw ValidationError("uploads are misconfigured: \(problem)") }
        return settings
    }
}
