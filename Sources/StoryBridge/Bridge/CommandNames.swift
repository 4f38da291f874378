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
        // Most names need no trimming; checking the two ends first keeps Foundation off the hot path.
        let utf8 = raw.utf8
        let trimmed: String
        if let first = utf8.first, let last = utf8.last, first > 0x20, last > 0x20, first < 0x80, last < 0x80 {
            trimmed = raw
        } else {
            trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return legacyAliases[trimmed] ?? trimmed
    }
}
