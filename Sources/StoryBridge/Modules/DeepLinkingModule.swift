/// The Deep linking module (§5.7): the inbound link the viewer arrived with, and the outbound
/// link content prepares for another app (kept per viewer and shown at `/__storybridge/deeplinks`).
package struct DeepLinkingModule: BridgeModule {
    package let name = "DeepLinking"

    package init() {}

    /// The readers answer from the viewer's deep links in memory; the writers change them on the
    /// viewer (an actor, so they await: ordered, with a deadline).
    package var commands: CommandTable {
        BridgeCommand.fromMemory("getDeepLinkingInboundData") { _, context in
            guard let link = context.viewer.latestState.inboundDeepLink else {
                throw BridgeError.notFound("Not launched by a deep link")
            }
            return link.json
        }
        BridgeCommand.fromMemory("getDeepLinkingOutboundData") { _, context in
            context.viewer.latestState.outboundDeepLink.json
        }
        BridgeCommand("setDeepLinkingOutboundScheme") { request, context in
            let scheme = try request.string("scheme").trimmingSpaces()
            guard Self.isValidScheme(scheme) else {
                throw BridgeError.invalidData(
                    field: "scheme", reason: "'\(scheme)' is not a URI scheme (a letter, then letters, digits, '+', '-' or '.')")
            }
            let link = await context.viewer.updateOutboundDeepLink { $0.scheme = scheme.lowercased() }
            context.logger.info("outbound deep link", metadata: ["uri": "\(link.uri ?? "")"])
            return .emptyObject
        }
        BridgeCommand("setDeepLinkingOutboundParameter") { request, context in
            let key = try request.nonEmptyString("key")
            let value = try request.stringified("value")
            await context.viewer.updateOutboundDeepLink { $0.parameters[key] = value }
            return .emptyObject
        }
        BridgeCommand.fromMemory("getDeepLinkingOutboundParameter") { request, context in
            let key = try request.string("key")
            guard let value = context.viewer.latestState.outboundDeepLink.parameters[key] else {
                throw BridgeError.notFound("No outbound parameter '\(key)'")
            }
            return ["value": .string(value)]
        }
        BridgeCommand("deleteDeepLinkingOutboundParameter") { request, context in
            let key = try request.string("key")
            await context.viewer.updateOutboundDeepLink { $0.parameters.removeValue(forKey: key) }
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
