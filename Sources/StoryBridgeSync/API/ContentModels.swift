import Foundation

// The content API's JSON objects, as far as sync uses them. Everything the service may leave out
// or send as null is optional, so a sparse object still decodes.

/// A client (`/v1/clients` item) with the presentations it holds.
public struct RemoteClient: Decodable, Sendable, Hashable {
    public var id: Int
    public var name: String?
    public var shortDescription: String?
    public var updated: Date?
    public var presentations: [RemotePresentationStub]?
}

/// A presentation as a client lists it: id, revision and flags.
public struct RemotePresentationStub: Decodable, Sendable, Hashable {
    public var id: Int
    public var revision: Int
    /// "Do not sync."
    public var skip: Bool?
    public var debug: Bool?
    public var lockout: Bool?
}

/// `/v1/presentations/{id}`.
public struct RemotePresentation: Decodable, Sendable, Hashable {
    public var id: Int
    public var name: String?
    public var shortDescription: String?
    public var longDescription: String?
    public var thumbImgId: String?
    public var imgId: String?
    public var order: Int?
    public var revision: Int
    public var clientId: Int?
    public var mapEnabled: Bool?
    public var visibility: Bool?
    public var skip: Bool?
    public var needConfirmation: Bool?
    public var created: Date?
    public var updated: Date?
    public var sourcesFolder: RemoteSourcesFolder?
    public var mediaFiles: [RemoteMediaStub]?
    public var slides: [RemoteSlideStub]?
    /// Presentations this one needs (ids; some SDKs decode them as strings, so both are read).
    public var presentations: [FlexibleId]?
}

/// A presentation's content package (`sourcesFolder`).
public struct RemoteSourcesFolder: Decodable, Sendable, Hashable {
    public var id: Int
    public var blobId: String?
    public var fileSize: Int64
    public var mimeType: String?
    public var revision: Int
}

/// `/v1/contentpackages/{presentationId}`: the package plus a time-limited download URL.
public struct RemoteContentPackage: Decodable, Sendable, Hashable {
    public var id: Int
    public var blobId: String?
    public var fileSize: Int64
    public var mimeType: String?
    public var revision: Int
    public var sas: String?
}

/// A media file as a presentation lists it.
public struct RemoteMediaStub: Decodable, Sendable, Hashable {
    public var id: Int
    public var revision: Int
    public var fileSize: Int64?
}

/// A slide as a presentation lists it.
public struct RemoteSlideStub: Decodable, Sendable, Hashable {
    public var id: Int
    public var revision: Int
}

/// `/v1/mediafiles/{id}`.
public struct RemoteMediaFile: Decodable, Sendable, Hashable {
    public var id: Int
    public var revision: Int
    public var fileName: String
    public var title: String?
    public var blobId: String?
    public var fileSize: Int64
    public var mimeType: String?
    public var sas: String?
}

/// `/v1/slides/{id}`.
public struct RemoteSlide: Decodable, Sendable, Hashable {
    public var id: Int
    public var revision: Int
    public var name: String?
    public var linkedSlides: String?
    public var swipeNext: String?
    public var swipePrevious: String?
    public var pageSource: String?
}

/// An id sent as a number or as a string of digits.
public struct FlexibleId: Decodable, Sendable, Hashable {
    public var value: Int

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            value = number
        } else if let text = try? container.decode(String.self), let number = Int(text) {
            value = number
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an id")
        }
    }
}
