import Foundation

/// Normalises the command names that content sends.
public enum CommandNames {
    /// Legacy spellings still sent by older storyclm.js builds, mapped to the current names.
    public static let legacyAliases: [String: String] = [
        "getsessions": "getSessions",
        "getsessionbyid": "getSessionById",
        "sessionupdate": "setSessionComplete",
        "setPresentationComplete": "setSessionComplete",
    ]

    /// The current name of `raw`: surrounding whitespace trimmed (1.7.6 sends `"openMediaLibrary "`)
    /// and legacy aliases mapped.
    public static func canonical(_ raw: String) -> String {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        return legacyAliases[trimmed] ?? trimmed
    }
}
