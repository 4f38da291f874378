import Foundation

/// The config file (`--config storybridge.json`): every section and key is optional.
///
/// ```json
/// {
///   "identity": {
///     "user": {"id": "u-1", "username": "Anna"},
///     "app": {"localization": "ru", "os": "Linux", "osVersion": "6.1", "device": "QA rig", "appVersion": "2.2.0"},
///     "location": {"latitude": 55.75, "longitude": 37.62, "address": "Moscow"}
///   },
///   "server": {"host": "127.0.0.1", "port": 8080, "allowedHosts": ["kiosk.lan"],
///              "viewerIdleTime": "30m", "sessionTimeout": "30m"},
///   "bridge": {"deadlineSeconds": 10},
///   "http": {"allowedHosts": ["api.example.com", "*.example.org"], "timeoutSeconds": 15},
///   "upload": {"endpoint": "http://127.0.0.1:8090", "hub": "storybridge", "key": "k", "secret": "s"},
///   "storyContext": "story-context.json",
///   "sync": {"every": "15m", "window": "01:00-05:00", "limitRate": "2M", "keepRevisions": 1}
/// }
/// ```
package struct HostConfiguration: Sendable, Hashable, Codable {
    /// The `server` section.
    package struct Server: Sendable, Hashable, Codable {
        package var host: String?
        package var port: Int?
        /// Names (`Host` headers) the server answers to besides its own loopback names and bound
        /// address; added to `serve --allowed-host`.
        package var allowedHosts: [String]?
        /// How long a viewer without a page connection stays in memory (`serve --viewer-idle-time`).
        package var viewerIdleTime: TimeLimit?
        /// How long after its viewer left a session is finished by timeout, or `none`
        /// (`serve --session-timeout`).
        package var sessionTimeout: TimeLimit?
        package init(
            host: String? = nil, port: Int? = nil, allowedHosts: [String]? = nil, viewerIdleTime: TimeLimit? = nil,
            sessionTimeout: TimeLimit? = nil
        ) {
            self.host = host
            self.port = port
            self.allowedHosts = allowedHosts
            self.viewerIdleTime = viewerIdleTime
            self.sessionTimeout = sessionTimeout
        }
    }

    /// The `bridge` section.
    package struct BridgeSettings: Sendable, Hashable, Codable {
        /// Seconds the router waits for a module before answering a 504 `Failure`.
        package var deadlineSeconds: Double?
        package init(deadlineSeconds: Double? = nil) {
            self.deadlineSeconds = deadlineSeconds
        }
    }

    package var identity: HostIdentity
    package var server: Server
    package var bridge: BridgeSettings
    /// The collector analytics are published to; `nil` when not configured.
    package var upload: UploadSettings?
    /// What the HTTP module may reach.
    package var http: HTTPModuleSettings
    /// Tables declared for the Tables module (others are created by their first entry).
    package var tables: [TableDefinition]
    /// Commands answered without Swift: fixed replies, templates, webhooks.
    package var commands: [ConfiguredCommand]
    /// A Story context definition file (``StoryContextDefinition``) every presentation starts
    /// from; a presentation's own `story-context.json` wins object by object.
    package var storyContext: String?
    /// Serve's built-in sync.
    package var sync: SyncSettings = SyncSettings()
    /// Signed packages: the pinned root's file and whether unsigned packages are refused.
    package var trust: TrustSettings = TrustSettings()
    /// The audit log's checkpoints: the defaults of serve's `--audit-checkpoint-…` options.
    package var audit: AuditSettings = AuditSettings()
    /// Reporting to a fleet hub: the defaults of serve's `--fleet…` options.
    package var fleet: FleetSettings = FleetSettings()
    /// Which deck plays when (``DeckSchedule``), as `serve --schedule FILE` holds it; read with
    /// ``DeckSchedule/parse(_:place:)`` when serve starts.
    package var schedule: JSONValue?

    package init(
        identity: HostIdentity = HostIdentity(), server: Server = Server(), bridge: BridgeSettings = BridgeSettings(),
        upload: UploadSettings? = nil, http: HTTPModuleSettings = HTTPModuleSettings()
    ) {
        self.http = http
        self.tables = []
        self.commands = []
        self.identity = identity
        self.server = server
        self.bridge = bridge
        self.upload = upload
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        identity = try container.decodeIfPresent(HostIdentity.self, forKey: .identity) ?? HostIdentity()
        server = try container.decodeIfPresent(Server.self, forKey: .server) ?? Server()
        bridge = try container.decodeIfPresent(BridgeSettings.self, forKey: .bridge) ?? BridgeSettings()
        upload = try container.decodeIfPresent(UploadSettings.self, forKey: .upload)
        http = try container.decodeIfPresent(HTTPModuleSettings.self, forKey: .http) ?? HTTPModuleSettings()
        tables = try container.decodeIfPresent([TableDefinition].self, forKey: .tables) ?? []
        commands = try container.decodeIfPresent([ConfiguredCommand].self, forKey: .commands) ?? []
        storyContext = try container.decodeIfPresent(String.self, forKey: .storyContext)
        sync = try container.decodeIfPresent(SyncSettings.self, forKey: .sync) ?? SyncSettings()
        trust = try container.decodeIfPresent(TrustSettings.self, forKey: .trust) ?? TrustSettings()
        audit = try container.decodeIfPresent(AuditSettings.self, forKey: .audit) ?? AuditSettings()
        fleet = try container.decodeIfPresent(FleetSettings.self, forKey: .fleet) ?? FleetSettings()
        schedule = try container.decodeIfPresent(JSONValue.self, forKey: .schedule)
    }

    /// The Story context definition of ``storyContext``; empty when none is configured, an error
    /// when the file is missing or not valid.
    package func storyContextDefinition() throws(StoryContextError) -> StoryContextDefinition {
        guard let storyContext else { return StoryContextDefinition() }
        let file = URL(fileURLWithPath: storyContext)
        guard let definition = try StoryContextDefinition.read(from: file) else {
            throw .invalidDefinition(source: file.path, reason: "no such file (config key storyContext)")
        }
        return definition
    }

    /// Reads a config file, with an error that names the file and the bad key.
    package static func load(from file: URL) throws(ConfigurationError) -> HostConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw .unreadable(path: file.path, reason: SystemProblem(error).description)
        }
        do {
            return try JSONDecoder().decode(HostConfiguration.self, from: data)
        } catch let error as DecodingError {
            throw .invalid(path: file.path, reason: ConfigurationError.describe(error))
        } catch {
            throw .invalid(path: file.path, reason: "\(error)")
        }
    }
}

/// A config file that cannot be used.
package enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case invalid(path: String, reason: String)

    package var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read config file '\(path)': \(reason)"
        case .invalid(let path, let reason): return "config file '\(path)' is invalid: \(reason)"
        }
    }

    /// A sentence naming the key a decoding error is about.
    package static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.isEmpty ? "(top level)" : codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "'\(path(context.codingPath))' must be \(type)"
        case .valueNotFound(let type, let context):
            return "'\(path(context.codingPath))' must be \(type), got null"
        case .keyNotFound(let key, let context):
            return "'\(path(context.codingPath + [key]))' is missing"
        case .dataCorrupted(let context):
            if let underlying = context.underlyingError { return "not valid JSON (\(underlying))" }
            return "\(context.debugDescription) at '\(path(context.codingPath))'"
        @unknown default:
            return "\(error)"
        }
    }
}
