/// The Base module: `go`, `getNavigationData`, `getAppInfo`, `getUserInfo`, `getGeoLocationInfo`
/// (PROTOCOL.md §5.1).
public struct BaseModule: BridgeModule {
    public let name = "Base"
    public let commands = ["go", "getNavigationData", "getAppInfo", "getUserInfo", "getGeoLocationInfo"]

    /// Answers from the viewer's state and the library in memory.
    public var answersImmediately: Bool { true }

    public init() {}

    public func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        switch request.command {
        case "go":
            return try await go(request, context: context)
        case "getNavigationData":
            return await context.viewer.state.navigationData
        case "getAppInfo":
            let app = context.identity.app
            return [
                "localization": .string(app.localization), "osVersion": .string(app.osVersion),
                "os": .string(app.os), "device": .string(app.device), "appVersion": .string(app.appVersion),
            ]
        case "getUserInfo":
            return ["id": .string(context.identity.user.id), "username": .string(context.identity.user.username)]
        case "getGeoLocationInfo":
            let location = context.identity.location
            // iOS spells the longitude key "longtitude"; content may read either.
            return [
                "latitude": .double(location.latitude), "longitude": .double(location.longitude),
                "longtitude": .double(location.longitude), "address": .string(location.address),
            ]
        default:
            throw BridgeError.unknownCommand(request.command)
        }
    }

    private func go(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let slideName = try request.string("slideName").trimmingSpaces()
        guard !slideName.isEmpty else { throw BridgeError.invalidData(field: "slideName", reason: "is empty") }
        let data = try request.member("data") ?? .emptyObject
        let presentation = try await context.currentPresentation()
        guard presentation.hasSlide(slideName) else {
            throw BridgeError.notFound("Slide '\(slideName)' not found in presentation \(presentation.id)")
        }
        await context.navigate(to: presentation, slide: slideName, data: data == .null ? .emptyObject : data, cause: .go)
        return .emptyObject
    }
}
