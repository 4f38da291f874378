/// The Base module: `go`, `getNavigationData`, `getAppInfo`, `getUserInfo`, `getGeoLocationInfo`
/// (PROTOCOL.md §5.1).
struct BaseModule: BridgeModule {
    package let name = "Base"

    package init() {}

    /// Every command but `go` answers from the viewer's state, the library and the identity in
    /// memory; `go` asks the viewer (an actor) to navigate, in the page's order.
    package var commands: CommandTable {
        BridgeCommand("go", handler: go)
        BridgeCommand.fromMemory("getNavigationData") { _, context in
            context.viewer.latest(\.navigationData)
        }
        BridgeCommand.fromMemory("getAppInfo") { _, context in
            let app = context.identity.app
            return [
                "localization": .string(app.localization), "osVersion": .string(app.osVersion),
                "os": .string(app.os), "device": .string(app.device), "appVersion": .string(app.appVersion),
            ]
        }
        BridgeCommand.fromMemory("getUserInfo") { _, context in
            ["id": .string(context.identity.user.id), "username": .string(context.identity.user.username)]
        }
        BridgeCommand.fromMemory("getGeoLocationInfo") { _, context in
            let location = context.identity.location
            // iOS spells the longitude key "longtitude"; content may read either.
            return [
                "latitude": .double(location.latitude), "longitude": .double(location.longitude),
                "longtitude": .double(location.longitude), "address": .string(location.address),
            ]
        }
    }

    private func go(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let slideName = try request.string("slideName").trimmingSpaces()
        guard !slideName.isEmpty else { throw BridgeError.invalidData(field: "slideName", reason: "is empty") }
        let data = try request.member("data") ?? .emptyObject
        let presentation = try context.currentPresentation()
        guard presentation.hasSlide(slideName) else {
            throw BridgeError.notFound("Slide '\(slideName)' not found in presentation \(presentation.id)")
        }
        await context.navigate(to: presentation, slide: slideName, data: data == .null ? .emptyObject : data, cause: .go)
        return .emptyObject
    }
}
