extension Bridge {
    /// What the router needs to handle one command, worked out once when its module subscribes.
    /// A class, so handing a route out of the table costs one reference.
    final class Route: Sendable {
        /// The canonical command name, shared by every request routed here.
        let name: String
        let registration: Registration
        /// The table entry: the handler.
        let command: BridgeCommand
        /// The command's policy, with the registration's deadline applied.
        let policy: CommandPolicy
        /// The policy's deadline in time; `nil` when the handler may take as long as it likes
        /// (``CommandDeadline/unlimited``). A connection answers a ``CommandPolicy/fromMemory(_:)``
        /// command by its synchronous closure, which needs none; ``Bridge/handle(_:context:)`` uses it.
        let deadline: Duration?

        init(name: String, registration: Registration, command: BridgeCommand, policy: CommandPolicy, deadline: Duration?) {
            self.name = name
            self.registration = registration
            self.command = command
            self.policy = policy
            self.deadline = deadline
        }
    }
}

/// A request with its route found and its command name made canonical.
package struct RoutedRequest: Sendable {
    let route: Bridge.Route
    let request: BridgeRequest

    var module: any BridgeModule { route.registration.module }
    /// The command's policy, as its route carries it.
    package var policy: CommandPolicy { route.policy }
}

/// A frame as read, with each of its requests routed once (``PageConnection/route(_:)``).
package enum RoutedFrame: Sendable {
    /// One request of a frame.
    package enum Item: Sendable {
        /// A module answers its command.
        case routed(RoutedRequest)
        /// No module answers its command: answered 400, in its place.
        case unknown(BridgeRequest)
        /// It could not be read.
        case unreadable(FrameError)
    }

    /// A frame holding one request (or that could not be read at all).
    case one(Item)
    /// An array frame: its requests in the order sent.
    case queue([Item])
}
