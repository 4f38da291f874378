import Foundation

/// The identity, device and location values the Base module answers with. Read from the `identity`
/// section of the config file; command-line flags override single values.
public struct HostIdentity: Sendable, Hashable, Codable {
    /// `getUserInfo` → `{id, username}`.
    public struct User: Sendable, Hashable, Codable {
        public var id: String
        public var username: String
        public init(id: String = "local-user", username: String = "Local User") {
            self.id = id
            self.username = username
        }
    }

    /// `getAppInfo` → `{localization, osVersion, os, device, appVersion}`.
    public struct App: Sendable, Hashable, Codable {
        public var localization: String
        public var os: String
        public var osVersion: String
        public var device: String
        public var appVersion: String
        public init(
            localization: String = HostIdentity.systemLocalization(), os: String = "Linux",
            osVersion: String = HostIdentity.systemOSVersion(), device: String = "storybridge",
            appVersion: String = StoryBridgeVersion.current
        ) {
            self.localization = localization
            self.os = os
            self.osVersion = osVersion
            self.device = device
            self.appVersion = appVersion
        }
    }

    /// `getGeoLocationInfo` → `{latitude, longitude, address}`.
    public struct Location: Sendable, Hashable, Codable {
        public var latitude: Double
        public var longitude: Double
        public var address: String
        public init(latitude: Double = 0, longitude: Double = 0, address: String = "") {
            self.latitude = latitude
            self.longitude = longitude
            self.address = address
        }
    }

    public var user = User()
    public var app = App()
    public var location = Location()

    public init(user: User = User(), app: App = App(), location: Location = Location()) {
        self.user = user
        self.app = app
        self.location = location
    }

    /// The language of `LANG` (`ru_RU.UTF-8` → `ru`), else `en`.
    public static func systemLocalization() -> String {
        let lang = ProcessInfo.processInfo.environment["LANG"] ?? ""
        let code = lang.prefix { $0.isLetter }
        return code.isEmpty || code == "C" || code == "POSIX" ? "en" : String(code)
    }

    /// The kernel's version string, e.g. `6.1.0`.
    public static func systemOSVersion() -> String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
    }
}

extension HostIdentity {
    // Every key is optional in the file: a partial section keeps the defaults of what it omits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        user = try container.decodeIfPresent(User.self, forKey: .user) ?? User()
        app = try container.decodeIfPresent(App.self, forKey: .app) ?? App()
        location = try container.decodeIfPresent(Location.self, forKey: .location) ?? Location()
    }
}

extension HostIdentity.User {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self()
        id = try container.decodeIfPresent(String.self, forKey: .id) ?? defaults.id
        username = try container.decodeIfPresent(String.self, forKey: .username) ?? defaults.username
    }
}

extension HostIdentity.App {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self()
        localization = try container.decodeIfPresent(String.self, forKey: .localization) ?? defaults.localization
        os = try container.decodeIfPresent(String.self, forKey: .os) ?? defaults.os
        osVersion = try container.decodeIfPresent(String.self, forKey: .osVersion) ?? defaults.osVersion
        device = try container.decodeIfPresent(String.self, forKey: .device) ?? defaults.device
        appVersion = try container.decodeIfPresent(String.self, forKey: .appVersion) ?? defaults.appVersion
    }
}

extension HostIdentity.Location {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        latitude = try container.decodeIfPresent(Double.self, forKey: .latitude) ?? 0
        longitude = try container.decodeIfPresent(Double.self, forKey: .longitude) ?? 0
        address = try container.decodeIfPresent(String.self, forKey: .address) ?? ""
    }
}
