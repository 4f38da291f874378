import Foundation

/// An inbound deep link: `storyclm://content?contentId=<presId>&slide=<x.html>&<more params>`.
public struct DeepLink: Sendable, Hashable, Codable {
    /// The link as given.
    public var uri: String
    /// The presentation it opens.
    public var presentationId: Int
    /// The slide it opens (`index.html` when absent).
    public var slide: String
    /// Every query parameter of the link.
    public var parameters: [String: String]
    /// Who sent it: the `source` parameter, else `external`.
    public var source: String

    /// Why a link cannot be used.
    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case notAURI(String)
        case missingContentId(String)
        /// The reason the text is not a deep link.
        public var description: String {
            switch self {
            case .notAURI(let text): return "'\(text)' is not a deep link URI (expected storyclm://content?contentId=N&slide=x.html)"
            case .missingContentId(let text): return "'\(text)' has no numeric contentId parameter"
            }
        }
    }

    /// Reads a link.
    public init(_ text: String) throws(ParseError) {
        guard let components = URLComponents(string: text), components.scheme != nil else { throw .notAURI(text) }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        guard let id = parameters["contentId"].flatMap({ Int($0) }) else { throw .missingContentId(text) }
        self.uri = text
        self.presentationId = id
        let slide = parameters["slide"] ?? ""
        self.slide = slide.isEmpty ? Presentation.startSlide : slide
        self.parameters = parameters
        self.source = parameters["source"] ?? "external"
    }

    /// `getDeepLinkingInboundData`'s answer.
    package var json: JSONValue {
        ["source": .string(source), "uri": .string(uri), "parameters": .object(parameters.mapValues(JSONValue.string))]
    }
}

/// What content prepares for an outbound deep link (to another app).
package struct OutboundDeepLink: Sendable, Hashable, Codable {
    package var scheme: String?
    package var parameters: [String: String] = [:]

    package init() {}

    /// `getDeepLinkingOutboundData`'s answer.
    package var json: JSONValue {
        ["source": scheme.map(JSONValue.string) ?? .null, "parameters": .object(parameters.mapValues(JSONValue.string))]
    }

    /// The link it makes, `scheme://?k=v&...`, when a scheme is set.
    package var uri: String? {
        guard let scheme else { return nil }
        var components = URLComponents()
        components.scheme = scheme
        components.host = ""
        components.queryItems = parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return components.string
    }
}
