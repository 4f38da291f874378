import ArgumentParser
import Foundation
import StoryBridge

/// Flags that override single identity values of the config file.
struct IdentityOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: "A JSON config file (see docs/CONFIGURATION.md).")
    var configFile: String?

    @Option(help: "User id answered by getUserInfo.")
    var userId: String?

    @Option(help: "User name answered by getUserInfo.")
    var username: String?

    @Option(help: "Localization answered by getAppInfo (default: the language of $LANG, else en).")
    var localization: String?

    @Option(help: "Device name answered by getAppInfo.")
    var device: String?

    @Option(help: "Latitude answered by getGeoLocationInfo.")
    var latitude: Double?

    @Option(help: "Longitude answered by getGeoLocationInfo.")
    var longitude: Double?

    @Option(help: "Address answered by getGeoLocationInfo.")
    var address: String?

    /// The config file (if any) with the flags applied on top.
    func resolve() throws -> HostConfiguration {
        var configuration = HostConfiguration()
        if let configFile {
            do {
                configuration = try HostConfiguration.load(from: URL(fileURLWithPath: configFile))
            } catch {
                throw ValidationError(error.description)
            }
        }
        if let userId { configuration.identity.user.id = userId }
        if let username { configuration.identity.user.username = username }
        if let localization { configuration.identity.app.localization = localization }
        if let device { configuration.identity.app.device = device }
        if let latitude { configuration.identity.location.latitude = latitude }
        if let longitude { configuration.identity.location.longitude = longitude }
        if let address { configuration.identity.location.address = address }
        return configuration
    }
}
