import Foundation

/// Normalises the command names that content sends.
public enum CommandNames {
    /// Legacy spellings still sent by older storyclm.js builds, mapped to the current names
    /// (docs/PROTOCOL.md §2.1 and §5.11, "StoryCLM generations"):
    ///
    /// - `openPresentation {presId}`: `StoryCLM.Presentation.Open` of the unversioned library of
    ///   2016 (storyclm/FrontendDevTest `04_Slider/js/StoryCLM.js`), `open` without a slide;
    /// - `setPresentationComplete {}`: `Presentation.SetComplete`, that library to 1.7.6;
    /// - `getsessions`, `getsessionbyid {id}`: `Sessions.Get`/`GetById` of 1.7.0 and 1.7.6;
    /// - `sessionconfirm {id}`: `Sessions.Confirm` of 1.7.0, which 1.7.6 made `sessionupdate
    ///   <session>` (`Sessions.Update`) and 2.0 `setSessionComplete {}` (`Sessions.SetComplete`):
    ///   all three mark the viewer's session complete.
    public static let legacyAliases: [String: String] = [
        "getsessions": "getSessions",
        "getsessionbyid": "getSessionById",
        "openPresentation": "open",
        "sessionconfirm": "setSessionComplete",
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
