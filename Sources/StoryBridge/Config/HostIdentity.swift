import Foundation

/// The identity, device and location values the Base module answers with. Read from the `identity`
/// section of the config file; command-line flags override single values.
public struct HostIdentity: Sendable, Hashable, Codable {
    /// `getUserInfo` → `{id, username}`.
    public struct User: Sendable, Hashable, Codable {
        /// The user id `getUserInfo` answers with.
        public var id: String
        /// The user name `getUserInfo` answers with.
        public var username: String
        /// A user; the defaults are the local user of a development host.
        public init(id: String = "local-user", username: String = "Local User") {
            self.id = id
            self.username = username
        }
    }

    /// `getAppInfo` → `{localization, osVersion, os, device, appVersion}`.
    public struct App: Sendable, Hashable, Codable {
        /// The interface language, such as `en` or `ru`.
        public var localization: String
        /// The operating system's name (`Linux`).
        public var os: String
        /// The operating system's version.
        public var osVersion: String
        /// The device's name (`storybridge`).
        public var device: String
        /// The host application's version.
        public var appVersion: String
        /// App facts; the defaults are this machine's language and system version and this build's version.
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
        /// Degrees north.
        public var latitude: Double
        /// Degrees east.
        public var longitude: Double
        /// The address as text.
        public var address: String
        /// A location; the default is 0, 0 with no address.
        public init(latitude: Double = 0, longitude: Double = 0, address: String = "") {
            self.latitude = latitude
            self.longitude = longitude
            self.address = address
        }
    }

    /// What `getUserInfo` answers.
    public var user = User()
    /// What `getAppInfo` answers.
    public var app = App()
    /// What `getGeoLocationInfo` answers.
    public var location = Location()

    /// An identity; each part defaults to its own defaults.
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
    /// Reads the config file's `identity` section; an absent part keeps its defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        user = try container.decodeIfPresent(User.self, forKey: .user) ?? User()
        app = try container.decodeIfPresent(App.self, forKey: .app) ?? App()
        location = try container.decodeIfPresent(Location.self, forKey: .location) ?? Location()
    }
}

extension HostIdentity.User {
    /// Reads `identity.user`; an absent key keeps its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self()
        id = try container.decodeIfPresent(String.self, forKey: .id) ?? defaults.id
        username = try container.decodeIfPresent(String.self, forKey: .username) ?? defaults.username
    }
}

extension HostIdentity.App {
    /// Reads `identity.app`; an absent key keeps its default.
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
    /// Reads `identity.location`; an absent key is 0 or empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        latitude = try container.decodeIfPresent(Double.self, forKey: .latitude) ?? 0
        longitude = try container.decodeIfPresent(Double.self, forKey: .longitude) ?? 0
        address = try container.decodeIfPresent(String.self, forKey: .address) ?? ""
    }
}
