/// The Deep linking module (§5.7): the inbound link the viewer arrived with, and the outbound
/// link content prepares for another app (kept per viewer and shown at `/__storybridge/deeplinks`).
public struct DeepLinkingModule: BridgeModule {
    public let name = "DeepLinking"
    public let commands = [
        "getDeepLinkingInboundData", "getDeepLinkingOutboundData", "setDeepLinkingOutboundScheme",
        "setDeepLinkingOutboundParameter", "getDeepLinkingOutboundParameter", "deleteDeepLinkingOutboundParameter",
    ]

    /// Answers from the viewer's state and the library in memory.
    public var answersImmediately: Bool { true }

    public init() {}

    public func execute(_ request: BridgeRequest, context: BridgeContext) async throws -> JSONValue {
        let viewer = context.viewer
        switch request.command {
        case "getDeepLinkingInboundData":
            guard let link = await viewer.state.inboundDeepLink else {
                throw BridgeError.notFound("Not launched by a deep link")
            }
            return link.json
        case "getDeepLinkingOutboundData":
            return await viewer.state.outboundDeepLink.json
        case "setDeepLinkingOutboundScheme":
            let scheme = try request.string("scheme").trimmingSpaces()
            guard Self.isValidScheme(scheme) else {
                throw BridgeError.invalidData(
                    field: "scheme", reason: "'\(scheme)' is not a URI scheme (a letter, then letters, digits, '+', '-' or '.')")
            }
            let link = await viewer.updateOutboundDeepLink { $0.scheme = scheme.lowercased() }
            context.logger.info("outbound deep link", metadata: ["uri": "\(link.uri ?? "")"])
            return .emptyObject
        case "setDeepLinkingOutboundParameter":
            let key = try request.nonEmptyString("key")
            let value = try request.stringified("value")
            await viewer.updateOutboundDeepLink { $0.parameters[key] = value }
            return .emptyObject
        case "getDeepLinkingOutboundParameter":
            let key = try request.string("key")
            guard let value = await viewer.state.outboundDeepLink.parameters[key] else {
                throw BridgeError.notFound("No outbound parameter '\(key)'")
            }
            return ["value": .string(value)]
        default:  // deleteDeepLinkingOutboundParameter
            let key = try request.string("key")
            await viewer.updateOutboundDeepLink { $0.parameters.removeValue(forKey: key) }
            return ["key": .string(key)]
        }
    }

    static func isValidScheme(_ scheme: String) -> Bool {
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter, scheme.count <= 64 else { return false }
        return scheme.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
