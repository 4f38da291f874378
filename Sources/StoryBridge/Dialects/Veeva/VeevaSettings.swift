import Foundation

/// `veeva.json` in a Veeva delivery's root (all members optional):
/// `{"keyMessages": ["KM_A", "KM_B"], "crmData": "crm-data.json", "appVersion": "262.2.30"}`: the
/// key-message order when the delivery has no loader CSV, the CRM data set's file, relative to the
/// delivery (by default `crm-data.json` when the delivery has one), and the app version
/// `getAppVersion` answers (by default ``defaultAppVersion``).
struct VeevaSettings: Sendable, Hashable {
    package var keyMessages: [String]?
    package var crmData: String?
    package var appVersion: String?

    /// The version `getAppVersion` answers when `veeva.json` names none: a Vault CRM release,
    /// with which the Vault library's `getApprovedDocument` takes its one-request path.
    static let defaultAppVersion = "262.2.30"

    package static func read(_ file: URL) throws(PresentationFolderError) -> VeevaSettings {
        let value: JSONValue
        do {
            value = try JSONValue.parse(try Data(contentsOf: file))
        } catch {
            throw .unreadable(path: file.path, reason: "not a JSON object: \(error)")
        }
        guard let members = value.objectValue else { throw .unreadable(path: file.path, reason: "not a JSON object") }
        var settings = VeevaSettings()
        if let list = members["keyMessages"] {
            guard let items = list.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw .unreadable(path: file.path, reason: "keyMessages must be an array of key-message names")
            }
            settings.keyMessages = items.compactMap(\.stringValue).map { $0.hasSuffix(".zip") ? String($0.dropLast(4)) : $0 }
        }
        if let data = members["crmData"] {
            guard let path = data.stringValue else { throw .unreadable(path: file.path, reason: "crmData must be a file name") }
            settings.crmData = path
        }
        if let version = members["appVersion"] {
            guard let text = version.stringValue, !text.isEmpty else {
                throw .unreadable(path: file.path, reason: "appVersion must be a version string such as \"262.2.30\"")
            }
            settings.appVersion = text
        }
        return settings
    }
}
