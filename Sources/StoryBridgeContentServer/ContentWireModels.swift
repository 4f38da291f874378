import Foundation

// The JSON objects of the StoryCLM content API, field names exactly as on the wire
// (docs/CONTENT-API.md). Optional strings encode as `null`, as the real service sends them.

/// A presentation as listed inside a client.
public struct WirePresentationStub: Sendable, Hashable, Codable {
    public var id: Int
    public var revision: Int
    public var skip: Bool
    public var debug: Bool
    public var lockout: Bool
}

/// An item of `GET /v1/clients`.
public struct WireClient: Sendable, Hashable, Codable {
    public var id: Int
    public var name: String
    public var lockoutEnabled: Bool
    public var shortDescription: String?
    public var longDescription: String?
    public var thumbImgId: String?
    public var imgId: String?
    public var url: String?
    public var email: String?
    public var created: String
    public var updated: String
    /// The client's statistics tables; this server has none (`null`).
    public var deviceLogTable: Int? = nil
    public var baseStatisticsTable: Int? = nil
    public var geolocationTable: Int? = nil
    public var presentations: [WirePresentationStub]
    public var users: [WireClientUser]
    public var groups: [WireEmpty]
    public var tables: [WireEmpty]

    public func encode(to encoder: any Encoder) throws {
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
public struct WireClientUser: Sendable, Hashable, Codable {
    public var id: String
    public var role: Int
}

/// A user of a presentation: `{"revision": 0, "id": GUID, "role": 0}`.
public struct WirePresentationUser: Sendable, Hashable, Codable {
    public var revision: Int
    public var id: String
    public var role: Int
}

/// Stands for list items this server never has (users, groups, tables of a client).
public struct WireEmpty: Sendable, Hashable, Codable {}

/// The package of a presentation: `sourcesFolder` in a presentation, and with `sas` the answer of
/// `GET /v1/contentpackages/{presentationId}`.
public struct WireSourcesFolder: Sendable, Hashable, Codable {
    public var id: Int
    public var blobId: String
    public var fileSize: Int64
    public var mimeType: String
    public var revision: Int
    public var created: String
    public var updated: String
    /// The signed download link; only in the content-package answer.
    public var sas: String?
}

/// A media file as listed in a presentation.
public struct WireMediaStub: Sendable, Hashable, Codable {
    public var id: Int
    public var revision: Int
    public var fileSize: Int64
}

/// A slide as listed in a presentation.
public struct WireSlideStub: Sendable, Hashable, Codable {
    public var id: Int
    public var revision: Int
}

/// `GET /v1/presentations/{id}`.
public struct WirePresentation: Sendable, Hashable, Codable {
    public var id: Int
    public var name: String
    public var shortDescription: String?
    public var longDescription: String?
    public var thumbImgId: String?
    public var imgId: String?
    public var order: Int
    public var revision: Int
    public var created: String
    public var updated: String
    public var clientId: Int
    public var debugModeEnabled: Bool
    public var skip: Bool
    public var mapEnabled: Bool
    public var mapType: Int
    public var needConfirmation: Bool
    public var previewMode: Int
    public var map: String?
    public var visibility: Bool
    public var sourcesFolder: WireSourcesFolder
    public var mediaFiles: [WireMediaStub]
    public var slides: [WireSlideStub]
    public var presentations: [Int]
    public var users: [WirePresentationUser]

    public func encode(to encoder: any Encoder) throws {
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
public struct WireMediaFile: Sendable, Hashable, Codable {
    public var id: Int
    public var revision: Int
    public var fileName: String
    public var title: String
    public var blobId: String
    public var fileSize: Int64
    public var mimeType: String
    public var created: String
    public var updated: String
    public var isAvailableForSharing: Bool
    public var sas: String
}

/// `GET /v1/slides/{id}`.
public struct WireSlide: Sendable, Hashable, Codable {
    public var id: Int
    public var revision: Int
    public var name: String
    /// The slide's HTML, Base64.
    public var pageSource: String
    /// The slides it links to, comma-separated (`"2.html,3.html"`).
    public var linkedSlides: String
    public var swipeNext: String?
    public var swipePrevious: String?
    public var created: String
    public var updated: String

    public func encode(to encoder: any Encoder) throws {
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
public enum ContentDate {
    public static func string(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        let milliseconds = (parts.nanosecond ?? 0) / 1_000_000
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0, milliseconds)
    }
}
