import Foundation
import GRDB

/// Session states (PROTOCOL.md §6).
package enum SessionState: Int, Sendable, Hashable, Codable, CaseIterable {
    /// In progress.
    case inProgress = 0
    /// Closed and saved: the only state that is uploaded.
    case saved = 1
    /// Closed without saving (a test run).
    case notSaved = 2
    /// Left by `open` of another presentation.
    case leftByOpen = 3
    /// Left by a deep link.
    case leftByDeepLink = 4

    /// States that may be restored when the same presentation is opened again.
    var isUnfinished: Bool { self == .inProgress || self == .leftByOpen || self == .leftByDeepLink }
}

/// How a finished session ended (column `session.endedBy`, member `endedBy` of the uploaded
/// session body). Unfinished sessions (states 0, 3, 4) have none.
package enum SessionEnd: String, Sendable, Hashable, Codable, DatabaseValueConvertible {
    /// The page closed the presentation (`closePresentation`, the chrome's close button).
    case close
    /// Its viewer was gone longer than the host's session timeout: the host saved it with the
    /// duration up to the viewer's last activity.
    case timeout
    /// Its presentation was quarantined while it was shown (`storybridge verify` found its files
    /// changed): the host saved it at once, so the record says when viewing stopped.
    case quarantine
    /// The kiosk's screen was left untouched for its idle time (`storybridge kiosk --idle-reset`):
    /// the host saved it at once, the slide shown recorded up to the last input, and the kiosk
    /// began a fresh viewer.
    case idle
}

/// Where and when a record was made. Records keep these four values in their own columns
/// (`created`, `timeZone`, `latitude`, `longitude`); `stamp` reads and sets them together.
package struct RecordStamp: Sendable, Hashable {
    package var created: Date
    /// Hours east of UTC.
    package var timeZone: Double
    package var latitude: Double
    package var longitude: Double

    package init(created: Date, timeZone: Double, latitude: Double, longitude: Double) {
        self.created = created
        self.timeZone = timeZone
        self.latitude = latitude
        self.longitude = longitude
    }

    /// `date` (read from the host's clock), in the host's time zone, at the configured location.
    package init(at date: Date, identity: HostIdentity) {
        self.init(
            created: date, timeZone: Double(TimeZone.current.secondsFromGMT(for: date)) / 3600,
            latitude: identity.location.latitude, longitude: identity.location.longitude)
    }
}

/// A visit of one presentation by one viewer (table `session`).
package struct SessionRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord, StoredRecord, TimestampedAsText, Stamped {
    package static let databaseTableName = "session"
    static let idColumn = CodingKeys.id.rawValue

    /// The columns; each property is its column.
    package enum CodingKeys: String, CodingKey, ColumnExpression, Sendable {
        case id, presentationId, viewerId, userId, created, timeZone, latitude, longitude, address, duration, slidesCount
        case state, complete, updated, endedBy, presentationRevision, manifestHash, manifestSigned
    }

    package var id: String
    package var presentationId: Int
    package var viewerId: String
    package var userId: String
    package var created: Date
    package var timeZone: Double
    package var latitude: Double
    package var longitude: Double
    package var address: String
    /// Seconds: the sum of its slide views.
    package var duration: Int
    package var slidesCount: Int
    package var state: SessionState
    package var complete: Bool
    /// When the session last changed.
    package var updated: Date
    /// How it ended, once finished (`close` or `timeout`); `nil` while it may go on.
    package var endedBy: SessionEnd?
    /// The library revision of the presentation when the session started (migration
    /// `v11-revisions`): which revision was on screen. Kept locally, not uploaded.
    package var presentationRevision: Int?
    /// The hash of the manifest the served folder was installed with when the session started
    /// (migration `v18-audit`; `nil` for a folder served from disk or with no manifest record):
    /// every audit entry of the session names it. Kept locally, not uploaded.
    package var manifestHash: String?
    /// Whether that manifest was signed (`false`: the hashes an unsigned install recorded).
    package var manifestSigned: Bool?

    package init(
        id: String, presentationId: Int, viewerId: String, userId: String, stamp: RecordStamp, address: String, duration: Int,
        slidesCount: Int, state: SessionState, complete: Bool, updated: Date? = nil, endedBy: SessionEnd? = nil,
        presentationRevision: Int? = nil
    ) {
        self.endedBy = endedBy
        self.presentationRevision = presentationRevision
        self.id = id
        self.presentationId = presentationId
        self.viewerId = viewerId
        self.userId = userId
        self.created = stamp.created
        self.timeZone = stamp.timeZone
        self.latitude = stamp.latitude
        self.longitude = stamp.longitude
        self.address = address
        self.duration = duration
        self.slidesCount = slidesCount
        self.state = state
        self.complete = complete
        self.updated = updated ?? stamp.created
    }

    /// The session as the Sessions commands answer it (without its slides).
    package var json: JSONValue {
        [
            "sessionId": .string(id), "presentationId": .int(presentationId), "userId": .string(userId),
            "created": .string(AnalyticsFormat.timestamp(created)), "timeZone": .double(timeZone),
            "state": .int(state.rawValue), "complete": .bool(complete), "duration": .int(duration),
            "slidesCount": .int(slidesCount), "latitude": .double(latitude), "longitude": .double(longitude),
            "address": .string(address), "endedBy": endedBy.map { .string($0.rawValue) } ?? .null,
        ]
    }
}

/// One slide shown and left (table `slideView`).
package struct SlideViewRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord, StoredRecord, TimestampedAsText, Stamped {
    package static let databaseTableName = "slideView"
    static let idColumn = CodingKeys.id.rawValue

    /// The columns; each property is its column.
    package enum CodingKeys: String, CodingKey, ColumnExpression, Sendable {
        case id, sessionId, presentationId, slideName, userId, duration, navigation, cause, created, timeZone, latitude, longitude
    }

    package var id: String
    package var sessionId: String
    package var presentationId: Int
    package var slideName: String
    package var userId: String
    /// Seconds on the slide.
    package var duration: Int
    /// `in` when reached from within the content (links, `go`, `open`), `out` from the host's map.
    package var navigation: String
    /// What made the viewer leave the slide: page, go, open, map, deepLink, close.
    package var cause: String
    /// When the slide was entered.
    package var created: Date
    package var timeZone: Double
    package var latitude: Double
    package var longitude: Double

    package init(
        id: String, sessionId: String, presentationId: Int, slideName: String, userId: String, duration: Int, navigation: String,
        cause: String, stamp: RecordStamp
    ) {
        self.id = id
        self.sessionId = sessionId
        self.presentationId = presentationId
        self.slideName = slideName
        self.userId = userId
        self.duration = duration
        self.navigation = navigation
        self.cause = cause
        self.created = stamp.created
        self.timeZone = stamp.timeZone
        self.latitude = stamp.latitude
        self.longitude = stamp.longitude
    }

    package var json: JSONValue {
        [
            "id": .string(id), "sessionId": .string(sessionId), "presentationId": .int(presentationId),
            "slideName": .string(slideName), "name": .string(slideName), "userId": .string(userId),
            "duration": .int(duration), "navigation": .string(navigation), "cause": .string(cause),
            "created": .string(AnalyticsFormat.timestamp(created)), "timeZone": .double(timeZone),
            "latitude": .double(latitude), "longitude": .double(longitude),
        ]
    }
}

/// One media file shown and closed (table `mediaView`).
package struct MediaViewRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord, StoredRecord, TimestampedAsText, Stamped {
    package static let databaseTableName = "mediaView"
    static let idColumn = CodingKeys.id.rawValue

    /// The columns; each property is its column.
    package enum CodingKeys: String, CodingKey, ColumnExpression, Sendable {
        case id, sessionId, presentationId, fileName, userId, duration, created, timeZone, latitude, longitude
    }

    package var id: String
    package var sessionId: String
    package var presentationId: Int
    package var fileName: String
    package var userId: String
    /// Seconds shown.
    package var duration: Int
    /// When the file was opened.
    package var created: Date
    package var timeZone: Double
    package var latitude: Double
    package var longitude: Double

    package init(
        id: String, sessionId: String, presentationId: Int, fileName: String, userId: String, duration: Int, stamp: RecordStamp
    ) {
        self.id = id
        self.sessionId = sessionId
        self.presentationId = presentationId
        self.fileName = fileName
        self.userId = userId
        self.duration = duration
        self.created = stamp.created
        self.timeZone = stamp.timeZone
        self.latitude = stamp.latitude
        self.longitude = stamp.longitude
    }

    package var json: JSONValue {
        [
            "id": .string(id), "sessionId": .string(sessionId), "presentationId": .int(presentationId),
            "fileName": .string(fileName), "userId": .string(userId), "duration": .int(duration),
            "created": .string(AnalyticsFormat.timestamp(created)), "timeZone": .double(timeZone),
            "latitude": .double(latitude), "longitude": .double(longitude),
        ]
    }
}

/// A key/value set by content, one per key per session (table `customEvent`).
package struct CustomEventRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord, StoredRecord, TimestampedAsText, Stamped
{
    package static let databaseTableName = "customEvent"
    static let idColumn = CodingKeys.id.rawValue

    /// The columns; each property is its column.
    package enum CodingKeys: String, CodingKey, ColumnExpression, Sendable {
        case id, sessionId, presentationId, userId, key, value, created, timeZone, latitude, longitude
    }

    package var id: String
    package var sessionId: String
    package var presentationId: Int
    package var userId: String
    package var key: String
    package var value: String
    /// When the value was last set.
    package var created: Date
    package var timeZone: Double
    package var latitude: Double
    package var longitude: Double

    package init(id: String, sessionId: String, presentationId: Int, userId: String, key: String, value: String, stamp: RecordStamp) {
        self.id = id
        self.sessionId = sessionId
        self.presentationId = presentationId
        self.userId = userId
        self.key = key
        self.value = value
        self.created = stamp.created
        self.timeZone = stamp.timeZone
        self.latitude = stamp.latitude
        self.longitude = stamp.longitude
    }

    /// The row as stored, column by column, for its audit entry: every `setCustomEvent` makes
    /// one (``AnalyticsStore/upserting(_:)``), and GRDB's `databaseDictionary`, which encodes the
    /// record through `Codable` into boxed values, was the largest share of that entry's cost. The
    /// same values: the date as ``AnalyticsFormat/timestamp(_:)`` text (``TimestampedAsText``).
    var auditRow: [String: DatabaseValue] {
        [
            "id": id.databaseValue, "sessionId": sessionId.databaseValue, "presentationId": presentationId.databaseValue,
            "userId": userId.databaseValue, "key": key.databaseValue, "value": value.databaseValue,
            "created": AnalyticsFormat.timestamp(created).databaseValue, "timeZone": timeZone.databaseValue,
            "latitude": latitude.databaseValue, "longitude": longitude.databaseValue,
        ]
    }

    package var json: JSONValue {
        [
            "id": .string(id), "sessionId": .string(sessionId), "presentationId": .int(presentationId),
            "userId": .string(userId), "key": .string(key), "value": .string(value),
            "created": .string(AnalyticsFormat.timestamp(created)), "timeZone": .double(timeZone),
            "latitude": .double(latitude), "longitude": .double(longitude),
        ]
    }
}

/// Formats shared by the store, the answers and the upload.
package enum AnalyticsFormat {
    /// ISO-8601 UTC with milliseconds, e.g. `2026-11-22T03:04:05.678Z`.
    ///
    /// The milliseconds are rounded, so a timestamp read with ``date(_:)`` writes back the same
    /// text (the formatter alone truncates, turning `.678` read back into `.677`).
    package static func timestamp(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard let utc = UTCTime(millisecondsSince1970: milliseconds), (0...9999).contains(utc.year) else {
            return formattedTimestamp(milliseconds: milliseconds)
        }
        // Written digit by digit: this runs for every record stored (the formatter costs more than
        // the SQLite insert it is for).
        var text = [UInt8]()
        text.reserveCapacity(24)
        func append(_ value: Int, digits: Int, then separator: Character?) {
            var divisor = 1
            for _ in 1..<digits { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
            if let separator { text.append(UInt8(ascii: separator.unicodeScalars.first!)) }
        }
        append(utc.year, digits: 4, then: "-")
        append(utc.month, digits: 2, then: "-")
        append(utc.day, digits: 2, then: "T")
        append(utc.hour, digits: 2, then: ":")
        append(utc.minute, digits: 2, then: ":")
        append(utc.second, digits: 2, then: ".")
        append(utc.millisecond, digits: 3, then: "Z")
        return String(decoding: text, as: UTF8.self)
    }

    /// The same text through Foundation's formatter (years outside 0...9999).
    static func formattedTimestamp(milliseconds: Double) -> String {
        let seconds = (milliseconds / 1000).rounded(.down)
        let wholeSeconds = Date(timeIntervalSince1970: seconds).formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon)
                .timeZone(separator: .omitted))
        // `wholeSeconds` ends with the zone, `Z`.
        return wholeSeconds.dropLast() + String(format: ".%03dZ", Int(milliseconds - seconds * 1000))
    }

    /// Parses what ``timestamp(_:)`` writes.
    package static func date(_ text: String) -> Date? {
        try? Date(
            text,
            strategy: .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon)
                .timeZone(separator: .omitted))
    }
}
