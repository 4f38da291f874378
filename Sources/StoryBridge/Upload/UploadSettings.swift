import Foundation

/// Where and how analytics are published: the StoryIoT credentials and the uploader's pace.
/// The `upload` section of the config file; flags override single values.
public struct UploadSettings: Sendable, Hashable, Codable {
    /// Base URL of the collector, e.g. `http://127.0.0.1:8090`.
    public var endpoint: String
    /// The StoryIoT hub the records are published to (`storybridge` by default).
    public var hub: String
    /// The StoryIoT key that signs the requests.
    public var key: String
    /// The StoryIoT secret that signs the requests.
    public var secret: String
    /// Seconds a signed request stays valid (default 180).
    public var expiration: Int
    /// Seconds between passes when all is well (default 10).
    public var intervalSeconds: Double
    /// Records sent per pass (default 100).
    public var batchSize: Int
    /// Seconds a publish request may take (default 15).
    public var requestTimeoutSeconds: Double
    /// Upper bound of the back-off between failing passes (default 300 s).
    public var maxBackoffSeconds: Double
    /// Caps of the upload queue.
    public var maxQueuedRecords: Int
    /// The most bytes the upload queue holds.
    public var maxQueuedBytes: Int
    /// A stable id of this device for `s-m-did` (default: the host name).
    public var deviceId: String

    /// Settings for `endpoint` with the StoryIoT `key` and `secret`; the rest default as documented on each property.
    public init(
        endpoint: String, hub: String = "storybridge", key: String, secret: String, expiration: Int = 180,
        intervalSeconds: Double = 10, batchSize: Int = 100, requestTimeoutSeconds: Double = 15,
        maxBackoffSeconds: Double = 300, maxQueuedRecords: Int = OutboxLimits().maxQueuedRecords,
        maxQueuedBytes: Int = OutboxLimits().maxQueuedBytes, deviceId: String = ProcessInfo.processInfo.hostName
    ) {
        self.endpoint = endpoint
        self.hub = hub
        self.key = key
        self.secret = secret
        self.expiration = expiration
        self.intervalSeconds = intervalSeconds
        self.batchSize = batchSize
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.maxBackoffSeconds = maxBackoffSeconds
        self.maxQueuedRecords = maxQueuedRecords
        self.maxQueuedBytes = maxQueuedBytes
        self.deviceId = deviceId
    }

    /// Reads the config file's `upload` section; an absent key keeps its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = UploadSettings(endpoint: "", key: "", secret: "")
        endpoint = try c.decodeIfPresent(String.self, forKey: .endpoint) ?? ""
        hub = try c.decodeIfPresent(String.self, forKey: .hub) ?? defaults.hub
        key = try c.decodeIfPresent(String.self, forKey: .key) ?? ""
        secret = try c.decodeIfPresent(String.self, forKey: .secret) ?? ""
        expiration = try c.decodeIfPresent(Int.self, forKey: .expiration) ?? defaults.expiration
        intervalSeconds = try c.decodeIfPresent(Double.self, forKey: .intervalSeconds) ?? defaults.intervalSeconds
        batchSize = try c.decodeIfPresent(Int.self, forKey: .batchSize) ?? defaults.batchSize
        requestTimeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .requestTimeoutSeconds) ?? defaults.requestTimeoutSeconds
        maxBackoffSeconds = try c.decodeIfPresent(Double.self, forKey: .maxBackoffSeconds) ?? defaults.maxBackoffSeconds
        maxQueuedRecords = try c.decodeIfPresent(Int.self, forKey: .maxQueuedRecords) ?? defaults.maxQueuedRecords
        maxQueuedBytes = try c.decodeIfPresent(Int.self, forKey: .maxQueuedBytes) ?? defaults.maxQueuedBytes
        deviceId = try c.decodeIfPresent(String.self, forKey: .deviceId) ?? defaults.deviceId
    }

    /// The queue caps as the store takes them.
    package var outboxLimits: OutboxLimits {
        OutboxLimits(maxQueuedRecords: maxQueuedRecords, maxQueuedBytes: maxQueuedBytes)
    }

    /// What is missing for uploads to work, if anything.
    public var problem: String? {
        if endpoint.isEmpty { return "no collector endpoint (upload.endpoint or --upload-endpoint)" }
        guard let url = URL(string: endpoint), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            return "the collector endpoint '\(endpoint)' is not an http(s) URL"
        }
        if key.isEmpty || secret.isEmpty { return "no key and secret for the collector (upload.key, upload.secret)" }
        if batchSize <= 0 { return "upload.batchSize must be at least 1" }
        if intervalSeconds <= 0 { return "upload.intervalSeconds must be more than 0" }
        return nil
    }
}
