import Foundation

/// The presentations a set of presentations opens (their `presentations` field), followed
/// recursively through the catalog: each id once (a cycle ends where it closes), at most
/// ``limit`` added, and the ids the catalog does not know set apart.
struct DependencyClosure: Sendable, Hashable {
    /// Most presentations one request brings in besides the ones asked for.
    static let limit = 64

    /// Dependencies to bring besides the roots, in the order they were reached.
    var added: [Int] = []
    /// Dependencies the service does not offer (not in the catalog).
    var missing: [Int] = []
    /// Whether ``limit`` stopped the walk.
    var truncated = false

    init(roots: [Int], rows: [Int: SyncedPresentation]) {
        var seen = Set(roots)
        var queue = roots
        var next = 0
        while next < queue.count {
            let id = queue[next]
            next += 1
            for dependency in Self.dependencies(of: rows[id]) where !seen.contains(dependency) {
                seen.insert(dependency)
                guard rows[dependency] != nil else {
                    missing.append(dependency)
                    continue
                }
                guard added.count < Self.limit else {
                    truncated = true
                    return
                }
                added.append(dependency)
                queue.append(dependency)
            }
        }
    }

    static func dependencies(of row: SyncedPresentation?) -> [Int] {
        guard let text = row?.dependencies else { return [] }
        return (try? JSONDecoder().decode([Int].self, from: Data(text.utf8))) ?? []
    }
}
