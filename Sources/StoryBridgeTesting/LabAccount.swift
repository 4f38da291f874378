/// The service, app and user a test content server knows and a test kiosk logs in with: a lab
/// that adopts it has them as its own static members (`ContentLab.username`, `SyncLab.password`).
package protocol LabAccount {}

extension LabAccount {
    /// The kiosk's service client.
    package static var serviceId: String { "kiosk-service" }
    /// The service client's secret.
    package static var serviceSecret: String { "service-secret" }
    /// The app client a user logs in through.
    package static var appId: String { "kiosk-app" }
    /// The app client's secret.
    package static var appSecret: String { "app-secret" }
    /// The user.
    package static var username: String { "anna" }
    /// The user's password (a space and characters a form body escapes).
    package static var password: String { "pa55 word&=" }
}
