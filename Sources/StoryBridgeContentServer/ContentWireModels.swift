import Foundation

// The JSON objects of the StoryCLM content API, field names exactly as on the wire
// (docs/CONTENT-API.md). Optional strings encode as `null`, as the real service sends them.

/// A presentation as listed inside a client.
struct WirePresentationStub: Sendable, Hashable, Codable {
    package var id: Int
    package var revision: Int
    package var skip: Bool
    package var debug: Bool
    package var lockout: Bool
}

/// An item of `GET /v1/clients`.
struct WireClient: Sendable, Hashable, Codable {
    package var id: Int
    package var name: String
    package var lockoutEnabled: Bool
    package var shortDescription: String?
    package var longDescription: String?
    package var thumbImgId: String?
    package var imgId: String?
    package var url: String?
    package var email: String?
    package var created: String
    package var updated: String
    /// The client's statistics tables; this server has none (`null`).
    package var deviceLogTable: Int? = nil
    package var baseStatisticsTable: Int? = nil
    package var geolocationTable: Int? = nil
    package var presentations: [WirePresentationStub]
    package var users: [WireClientUser]
    package var groups: [WireEmpty]
    package var tables: [WireEmpty]

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(lockoutEnabled, forKey: .lockoutEnabled)
        try container.encode(shortDescription, forKey: .shortDescription)
        try container.encode(longDescription, forKey: .longDescription)
        try container.encode(thumbImgId, forKey: .thumbImgId)
        try container.encode(imgId, forKey: .imgId)
        try container.encode(url, forKey: .url)
        try container.encode(email, forKey: .email)
        try container.encode(created, forKey: .created)
        try container.encode(updated, forKey: .updated)
        try container.encode(deviceLogTable, forKey: .deviceLogTable)
        try container.encode(baseStatisticsTable, forKey: .baseStatisticsTable)
        try container.encode(geolocationTable, forKey: .geolocationTable)
        try container.encode(presentations, forKey: .presentations)
        try container.encode(users, forKey: .users)
        try container.encode(groups, forKey: .groups)
        try container.encode(tables, forKey: .tables)
    }
}

/// A user of a client: `{"id": GUID, "role": 0}`.
struct WireClientUser: Sendable, Hashable, Codable {
    package var id: String
    package var role: Int
}

/// A user of a presentation: `{"revision": 0, "id": GUID, "role": 0}`.
struct WirePresentationUser: Sendable, Hashable, Codable {
    package var revision: Int
    package var id: String
    package var role: Int
}

/// Stands for list items this server never has (users, groups, tables of a client).
struct WireEmpty: Sendable, Hashable, Codable {}

/// The package of a presentation: `sourcesFolder` in a presentation, and with `sas` the answer of
/// `GET /v1/contentpackages/{presentationId}`.
struct WireSourcesFolder: Sendable, Hashable, Codable {
    package var id: Int
    package var blobId: String
    package var fileSize: Int64
    package var mimeType: String
    package var revision: Int
    package var created: String
    package var updated: String
    /// The signed download link; only in the content-package answer.
    package var sas: String?
    /// The link of the package revision's signed manifest (`/v1/contentpackages/{id}/manifest?packageRevision=N`);
    /// absent (not `null`) when the server signs nothing, so an unsigned server's answers are
    /// byte-identical to those of earlier versions and the vendor's own.
    package var manifest: String?
}

/// A media file as listed in a presentation.
struct WireMediaStub: Sendable, Hashable, Codable {
    package var id: Int
    package var revision: Int
    package var fileSize: Int64
}

/// A slide as listed in a presentation.
struct WireSlideStub: Sendable, Hashable, Codable {
    package var id: Int
    package var revision: Int
}

/// `GET /v1/presentations/{id}`.
struct WirePresentation: Sendable, Hashable, Codable {
    package var id: Int
    package var name: String
    package var shortDescription: String?
    package var longDescription: String?
    package var thumbImgId: String?
    package var imgId: String?
    package var order: Int
    package var revision: Int
    package var created: String
    package var updated: String
    package var clientId: Int
    package var debugModeEnabled: Bool
    package var skip: Bool
    package var mapEnabled: Bool
    package var mapType: Int
    package var needConfirmation: Bool
    package var previewMode: Int
    package var map: String?
    package var visibility: Bool
    package var sourcesFolder: WireSourcesFolder
    package var mediaFiles: [WireMediaStub]
    package var slides: [WireSlideStub]
    package var presentations: [Int]
    package var users: [WirePresentationUser]

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(shortDescription, forKey: .shortDescription)
        try container.encode(longDescription, forKey: .longDescription)
        try container.encode(thumbImgId, forKey: .thumbImgId)
        try container.encode(imgId, forKey: .imgId)
        try container.encode(order, forKey: .order)
        try container.encode(revision, forKey: .revision)
        try container.encode(created, forKey: .created)
        try container.encode(updated, forKey: .updated)
        try container.encode(clientId, forKey: .clientId)
        try container.encode(debugModeEnabled, forKey: .debugModeEnabled)
        try container.encode(skip, forKey: .skip)
        try container.encode(mapEnabled, forKey: .mapEnabled)
        try container.encode(mapType, forKey: .mapType)
        try container.encode(needConfirmation, forKey: .needConfirmation)
        try container.encode(previewMode, forKey: .previewMode)
        try container.encode(map, forKey: .map)
        try container.encode(visibility, forKey: .visibility)
        try container.encode(sourcesFolder, forKey: .sourcesFolder)
        try container.encode(mediaFiles, forKey: .mediaFiles)
        try container.encode(slides, forKey: .slides)
        try container.encode(presentations, forKey: .presentations)
        try container.encode(users, forKey: .users)
    }
}

/// `GET /v1/mediafiles/{id}`.
struct WireMediaFile: Sendable, Hashable, Codable {
    package var id: Int
    package var revision: Int
    package var fileName: String
    package var title: String
    package var blobId: String
    package var fileSize: Int64
    package var mimeType: String
    package var created: String
    package var updated: String
    package var isAvailableForSharing: Bool
    package var sas: String
}

/// `GET /v1/slides/{id}`.
struct WireSlide: Sendable, Hashable, Codable {
    package var id: Int
    package var revision: Int
    package var name: String
    /// The slide's HTML, Base64.
    package var pageSource: String
    /// The slides it links to, comma-separated (`"2.html,3.html"`).
    package var linkedSlides: String
    package var swipeNext: String?
    package var swipePrevious: String?
    package var created: String
    package var updated: String

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(revision, forKey: .revision)
        try container.encode(name, forKey: .name)
        try container.encode(pageSource, forKey: .pageSource)
        try container.encode(linkedSlides, forKey: .linkedSlides)
        try container.encode(swipeNext, forKey: .swipeNext)
        try container.encode(swipePrevious, forKey: .swipePrevious)
        try container.encode(created, forKey: .created)
        try container.encode(updated, forKey: .updated)
    }
}

/// Dates as StoryCLM writes them: UTC without a zone, milliseconds (`2016-12-27T11:06:14.447`).
package enum ContentDate {
    package static func string(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        let milliseconds = (parts.nanosecond ?? 0) / 1_000_000
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0, milliseconds)
    }
}
