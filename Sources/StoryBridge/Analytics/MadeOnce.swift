import Synchronization

/// A value made the first time it is asked for and kept: a class, so that every copy of the
/// struct holding it shares what was made (a struct replaces its `MadeOnce` when it changes).
final class MadeOnce<Value: Sendable>: Sendable {
    private let made = Mutex<Value?>(nil)

    /// The value, made by `make` on the first call (two first calls at once may both make it;
    /// one result is kept).
    func value(_ make: () -> Value) -> Value {
        if let value = made.withLock({ $0 }) { return value }
        let value = make()
        made.withLock { $0 = value }
        return value
    }
}
