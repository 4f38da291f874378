import Foundation

// The content API's JSON objects, as far as sync uses them. Everything the service may leave out
// or send as null is optional, so a sparse object still decodes.

/// A client (`/v1/clients` item) with the presentations it holds.
package struct RemoteClient: Decodable, Sendable, Hashable {
    package var id: Int
    package var name: String?
    package var shortDescription: String?
    package var updated: Date?
    package var presentations: [RemotePresentationStub]?
}

/// A presentation as a client lists it: id, revision and flags.
package struct RemotePresentationStub: Decodable, Sendable, Hashable {
    package var id: Int
    package var revision: Int
    /// "Do not sync."
    package var skip: Bool?
    package var debug: Bool?
    package var lockout: Bool?
}

/// `/v1/presentations/{id}`.
package struct RemotePresentation: Decodable, Sendable, Hashable {
    package var id: Int
    package var name: String?
    package var shortDescription: String?
    package var longDescription: String?
    package var thumbImgId: String?
    package var imgId: String?
    package var order: Int?
    package var revision: Int
    package var clientId: Int?
    package var mapEnabled: Bool?
    package var visibility: Bool?
    package var skip: Bool?
    package var needConfirmation: Bool?
    package var created: Date?
    package var updated: Date?
    package var sourcesFolder: RemoteSourcesFolder?
    package var mediaFiles: [RemoteMediaStub]?
    package var slides: [RemoteSlideStub]?
    /// Presentations this one needs (ids; some SDKs decode them as strings, so both are read).
    package var presentations: [FlexibleId]?
}

/// A presentation's content package (`sourcesFolder`).
package struct RemoteSourcesFolder: Decodable, Sendable, Hashable {
    package var id: Int
    package var blobId: String?
    package var fileSize: Int64
    package var mimeType: String?
    package var revision: Int
    /// The link of the signed manifest, from a service that signs (a storybridge extension).
    package var manifest: String?
}

/// `/v1/contentpackages/{presentationId}`: the package plus a time-limited download URL.
package struct RemoteContentPackage: Decodable, Sendable, Hashable {
    package var id: Int
    package var blobId: String?
    package var fileSize: Int64
    package var mimeType: String?
    package var revision: Int
    package var sas: String?
    /// The link of the signed manifest, from a service that signs (a storybridge extension).
    package var manifest: String?
}

/// A media file as a presentation lists it.
package struct RemoteMediaStub: Decodable, Sendable, Hashable {
    package var id: Int
    package var revision: Int
    package var fileSize: Int64?
}

/// A slide as a presentation lists it.
package struct RemoteSlideStub: Decodable, Sendable, Hashable {
    package var id: Int
    package var revision: Int
}

/// `/v1/mediafiles/{id}`.
package struct RemoteMediaFile: Decodable, Sendable, Hashable {
    package var id: Int
    package var revision: Int
    package var fileName: String
    package var title: String?
    package var blobId: String?
    package var fileSize: Int64
    package var mimeType: String?
    package var sas: String?
}

/// `/v1/slides/{id}`.
package struct RemoteSlide: Decodable, Sendable, Hashable {
    package var id: Int
    package var revision: Int
    package var name: String?
    package var linkedSlides: String?
    package var swipeNext: String?
    package var swipePrevious: String?
    package var pageSource: String?
}

/// An id sent as a number or as a string of digits.
package struct FlexibleId: Decodable, Sendable, Hashable {
    package var value: Int

    package init(from decoder: any Decoder) throws {
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
