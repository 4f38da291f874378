import StoryBridge

extension HostIdentity {
    /// A Russian-localised Linux rig as tests describe one: the user, the device and app version,
    /// and where it stands; the rest as every such test has it.
    package static func testRig(
        userId: String, username: String, device: String, appVersion: String,
        at location: (latitude: Double, longitude: Double, address: String)
    ) -> HostIdentity {
        HostIdentity(
            user: .init(id: userId, username: username),
            app: .init(localization: "ru", os: "Linux", osVersion: "6.1", device: device, appVersion: appVersion),
            location: .init(latitude: location.latitude, longitude: location.longitude, address: location.address))
    }
}
