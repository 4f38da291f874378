/// What a ``Bridge`` keeps under its one registration lock: the route of every canonical command
/// name, and lists worked out from those routes (``Bridge/derivedList(_:make:)``), dropped at each
/// change so none outlives the registrations it was made from.
struct RouteTable {
    /// Canonical command name → its route.
    var byName: [String: Bridge.Route] = [:]
    /// Lists worked out from `byName` since its last change, by name.
    var derived: [String: [String]] = [:]
    /// Counts changes, so a list made while one happened is not kept.
    private(set) var generation: UInt64 = 0

    /// Records a change of `byName`: every derived list is made anew when next asked for.
    mutating func changed() {
        generation &+= 1
        derived.removeAll()
    }
}
