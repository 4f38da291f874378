import Foundation

/// The filters of `/v1/fleet` and `/fleet` (docs/design/FLEET.md §6, §7.1):
/// `?state=offline&state=late&label=site:berlin&label=floor:1`.
///
/// - `state`: `new`, `online`, `late`, `offline` or `revoked`, repeated or comma-separated; a kiosk
///   in any of them passes. Without it every kiosk but the revoked ones passes.
/// - `label`: `KEY:VALUE`, repeated; a kiosk passes when it has every one (AND).
struct FleetFilter: Sendable, Equatable {
    /// The states asked for; nil: every state but `revoked`.
    var states: Set<String>?
    /// The labels every kiosk shown must have.
    var labels: [String: String] = [:]

    /// The states a kiosk can be in.
    static let knownStates = ["new", "online", "late", "offline", "revoked"]

    /// Every kiosk not revoked.
    init() {}

    /// The filter of a query string; a state not known, or a label not `KEY:VALUE`, is an error naming it.
    init(query: String?) throws(FleetQueryError) {
        for (name, value) in Self.pairs(query) {
            switch name {
            case "state":
                for state in value.split(separator: ",").map(String.init) where !state.isEmpty {
                    guard Self.knownStates.contains(state) else {
                        throw .invalid("state \"\(state)\" is not one of \(Self.knownStates.joined(separator: ", "))")
                    }
                    states = (states ?? []).union([state])
                }
            case "label":
                guard let colon = value.firstIndex(of: ":"), colon != value.startIndex else {
                    throw .invalid("label \"\(value)\" is not KEY:VALUE (for example site:berlin)")
                }
                let key = String(value[..<colon])
                let wanted = String(value[value.index(after: colon)...])
                if let earlier = labels[key], earlier != wanted {
                    throw .invalid("label \(key) is asked for twice, as \"\(earlier)\" and \"\(wanted)\"")
                }
                labels[key] = wanted
            default:
                continue
            }
        }
    }

    /// Whether a kiosk in `state` with `labels` passes.
    func admits(state: String, labels: [String: String]) -> Bool {
        guard states?.contains(state) ?? (state != "revoked") else { return false }
        return self.labels.allSatisfy { labels[$0.key] == $0.value }
    }

    /// The query's name–value pairs in order, percent-decoded (`+` as a space), repeats kept.
    static func pairs(_ query: String?) -> [(String, String)] {
        (query ?? "").split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String? {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decoded(parts[0]), let value = decoded(parts.count > 1 ? parts[1] : "") else { return nil }
            return (name, value)
        }
    }
}

/// A query of a fleet route that cannot be answered (400).
enum FleetQueryError: Error, Sendable, Equatable {
    /// What is wrong, naming the parameter.
    case invalid(String)

    /// The message of the 400 body.
    var message: String {
        switch self {
        case .invalid(let reason): reason
        }
    }
}
