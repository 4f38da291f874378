import Foundation

/// Record ids: lower-case UUIDs.
enum UUIDs {
    static func make() -> String { UUID().uuidString.lowercased() }
}
