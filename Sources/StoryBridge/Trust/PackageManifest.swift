import Foundation

/// One file of a manifest: its path in the installed tree, size and SHA-256 (64 hex digits), and
/// for a media file the presentation lists, its media file id.
package struct ManifestFile: Sendable, Hashable {
    package var path: String
    package var size: Int64
    package var sha256: String
    package var mediaFileId: Int?

    package init(path: String, size: Int64, sha256: String, mediaFileId: Int? = nil) {
        self.path = path
        self.size = size
        self.sha256 = sha256
        self.mediaFileId = mediaFileId
    }

    var json: JSONValue {
        var members: [String: JSONValue] = ["path": .string(path), "size": .int(Int(size)), "sha256": .string(sha256)]
        if let mediaFileId { members["mediaFileId"] = .int(mediaFileId) }
        return .object(members)
    }
}

/// The `signed` body of a package revision's manifest (docs/design/TRUST.md 1.2): every regular
/// file of the tree a kiosk installs, with the identity of the package revision and the time the
/// signature is good for. A **local** body (`storybridge-local`, no signature, no `expires`) records
/// the hashes of an unsigned install (rule U3).
package struct PackageManifest: SignedBody, Hashable {
    /// `type` of a signed manifest.
    static let signedType = "storybridge-manifest"
    /// `type` of the body recorded for an unsigned install.
    static let localType = "storybridge-local"
    package static var documentName: String { "manifest" }

    package var presentationId: Int
    package var presentationRevision: Int
    package var packageId: Int
    package var packageRevision: Int
    package var created: Date
    /// `nil` only for a local body.
    package var expires: Date?
    /// The keys document version the signing key was valid in; `nil` only for a local body.
    package var keysVersion: Int?
    /// Sorted by the UTF-8 bytes of `path`, each path once.
    package var files: [ManifestFile]
    /// Whether this is a local body (first-install hashes), not a signed manifest's.
    package var isLocal: Bool

    /// A signed manifest's body (`files` in any order: they are sorted here).
    package init(
        presentationId: Int, presentationRevision: Int, packageId: Int, packageRevision: Int,
        created: Date, expires: Date?, keysVersion: Int?, files: [ManifestFile], isLocal: Bool = false
    ) {
        self.presentationId = presentationId
        self.presentationRevision = presentationRevision
        self.packageId = packageId
        self.packageRevision = packageRevision
        self.created = Date(timeIntervalSince1970: created.timeIntervalSince1970.rounded(.down))
        self.expires = expires.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
        self.keysVersion = keysVersion
        self.files = files.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        self.isLocal = isLocal
    }

    package init(json: JSONValue) throws(TrustFailure) {
        let what = Self.documentName
        guard let type = json["type"]?.stringValue, type == Self.signedType || type == Self.localType else {
            throw .malformed(what: what, reason: "\"type\" is not \"\(Self.signedType)\"")
        }
        guard json["specVersion"]?.intValue == 1 else { throw .malformed(what: what, reason: "\"specVersion\" is not 1") }
        isLocal = type == Self.localType
        presentationId = try json.requiredInt("presentationId", in: what)
        presentationRevision = try json.requiredInt("presentationRevision", in: what)
        packageId = try json.requiredInt("packageId", in: what)
        packageRevision = try json.requiredInt("packageRevision", in: what)
        created = try TrustTime.member("created", of: json, in: what)
        if isLocal {
            expires = nil
            keysVersion = nil
        } else {
            expires = try TrustTime.member("expires", of: json, in: what)
            keysVersion = try json.requiredInt("keysVersion", in: what, atLeast: 1)
        }
        guard let list = json["files"]?.arrayValue else { throw .malformed(what: what, reason: "\"files\" is not an array") }
        var files: [ManifestFile] = []
        files.reserveCapacity(list.count)
        for entry in list {
            let path = try entry.requiredString("path", in: what)
            guard ZipArchive.isCanonicalSafePath(path) else {
                throw .malformed(what: what, reason: "the path '\(path)' is not a safe relative path")
            }
            if let previous = files.last, !previous.path.utf8.lexicographicallyPrecedes(path.utf8) {
                throw .malformed(what: what, reason: "the paths are not sorted and unique at '\(path)'")
            }
            let sha256 = try entry.requiredString("sha256", in: what)
            guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw .malformed(what: what, reason: "the sha256 of '\(path)' is not 64 lower-case hex digits")
            }
            let mediaFileId: Int?
            if entry["mediaFileId"] != nil {
                mediaFileId = try entry.requiredInt("mediaFileId", in: what)
            } else {
                mediaFileId = nil
            }
            files.append(
                ManifestFile(path: path, size: Int64(try entry.requiredInt("size", in: what)), sha256: sha256, mediaFileId: mediaFileId))
        }
        self.files = files
    }

    package var json: JSONValue {
        var members: [String: JSONValue] = [
            "type": .string(isLocal ? Self.localType : Self.signedType),
            "specVersion": 1,
            "presentationId": .int(presentationId),
            "presentationRevision": .int(presentationRevision),
            "packageId": .int(packageId),
            "packageRevision": .int(packageRevision),
            "created": .string(TrustTime.format(created)),
            "files": .array(files.map(\.json)),
        ]
        if let expires { members["expires"] = .string(TrustTime.format(expires)) }
        if let keysVersion { members["keysVersion"] = .int(keysVersion) }
        return .object(members)
    }

    /// The files by path.
    package var filesByPath: [String: ManifestFile] {
        Dictionary(files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// A signed manifest as served and stored.
package typealias SignedManifest = SignedDocument<PackageManifest>
