import Foundation

/// Every refusal of the trust layer (docs/design/TRUST.md): a document that is not canonical, a
/// signature that does not verify, a key file that is exposed or missing, a tree that differs from
/// its manifest. Each names the rule it broke and, where there is one, the file.
package enum TrustFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not JSON the canonical form can carry (a fraction, a duplicate name, bad syntax).
    case notCanonical(String)
    /// The document is JSON but not the kind expected (`what` names it: "manifest", "keys document").
    case malformed(what: String, reason: String)
    /// No signature of the document verifies against the keys it may be signed with.
    case signatureInvalid(what: String, keyIds: [String])
    /// A private key file grants access to group or others (`mode` as read).
    case keyFileExposed(path: String, mode: UInt16)
    /// A key file that must be written already exists (never overwritten).
    case keyFileExists(path: String)
    /// A key file could not be read or written (`reason` in a person's words).
    case keyFileUnusable(path: String, reason: String)
    /// A key file's text is not a key of the expected kind.
    case keyFileMalformed(path: String, reason: String)
    /// A tree holds an entry that is neither a regular file nor a folder (a symbolic link, a FIFO...).
    case unexpectedEntry(path: String, kind: String)
    /// A file of a tree could not be read to be hashed.
    case unreadable(path: String, reason: String)
    /// A tree's files are not the manifest's (rule 7).
    case treeDiffers(TreeDifference)
    /// The keys document offered was refused, or none is held (rule 2): signed packages are refused.
    case keysRefused(String)
    /// The manifest's only signatures are by keys the held keys document revoked (rule 3).
    case keyRevoked(keyId: String, revokedAt: String, reason: String)
    /// The manifest was signed under a newer keys document than the one held (rule 3).
    case keysVersionAhead(signed: Int, held: Int)
    /// The manifest is another package's or revision's (rule 4).
    case identityMismatch(String)
    /// The manifest's `created` is more than 5 minutes ahead of this host's clock (rule 5).
    case manifestFromTheFuture(presentationId: Int, created: String)
    /// The manifest expired (rule 5).
    case manifestExpired(presentationId: Int, expires: String)
    /// The offer goes back to an older signed revision (rule 6).
    case wentBack(String)
    /// An unsigned package of a presentation that arrived signed before (rule U1).
    case unsignedAfterSigned(presentationId: Int, since: String)
    /// An unsigned package under `--require-signed` (rule U2).
    case unsignedRefused(presentationId: Int)

    /// The short name of the rule, for `--json` outputs and tests (`"signature"`, `"key-file"`...).
    package var rule: String {
        switch self {
        case .notCanonical: "canonical-json"
        case .malformed: "document"
        case .signatureInvalid, .keyRevoked: "signature"
        case .keyFileExposed, .keyFileExists, .keyFileUnusable, .keyFileMalformed: "key-file"
        case .unexpectedEntry, .unreadable, .treeDiffers: "files"
        case .keysRefused, .keysVersionAhead: "keys"
        case .identityMismatch: "identity"
        case .manifestFromTheFuture, .manifestExpired: "expiry"
        case .wentBack: "no-going-back"
        case .unsignedAfterSigned: "unsigned-after-signed"
        case .unsignedRefused: "require-signed"
        }
    }

    /// The file named by the failure, if any.
    package var file: String? {
        switch self {
        case .keyFileExposed(let path, _), .keyFileExists(let path), .keyFileUnusable(let path, _),
            .keyFileMalformed(let path, _):
            path
        case .unexpectedEntry(let path, _), .unreadable(let path, _): path
        case .treeDiffers(let difference): difference.paths.first
        case .notCanonical, .malformed, .signatureInvalid, .keyRevoked, .keysRefused, .keysVersionAhead, .identityMismatch,
            .manifestFromTheFuture, .manifestExpired, .wentBack, .unsignedAfterSigned, .unsignedRefused:
            nil
        }
    }

    package var description: String {
        switch self {
        case .notCanonical(let reason):
            "not canonical JSON: \(reason)"
        case .malformed(let what, let reason):
            "the \(what) is malformed: \(reason)"
        case .signatureInvalid(let what, let keyIds):
            keyIds.isEmpty
                ? "the \(what) carries no signature by a trusted key"
                : "the \(what) is not signed by a trusted key (signatures by \(keyIds.joined(separator: ", ")) do not verify)"
        case .keyFileExposed(let path, let mode):
            "\(path) is readable by others (mode \(String(format: "%04o", Int(mode)))); `chmod 600 \(path)`"
        case .keyFileExists(let path):
            "\(path) exists already; a key file is never overwritten"
        case .keyFileUnusable(let path, let reason):
            "\(path): \(reason)"
        case .keyFileMalformed(let path, let reason):
            "\(path) is not a key file: \(reason)"
        case .unexpectedEntry(let path, let kind):
            "manifest: '\(path)' is \(kind), not a regular file"
        case .unreadable(let path, let reason):
            "manifest: '\(path)' cannot be read: \(reason)"
        case .treeDiffers(let difference):
            "manifest: \(difference)"
        case .keysRefused(let reason):
            "keys document refused: \(reason)"
        case .keyRevoked(let keyId, let revokedAt, let reason):
            "the manifest is signed by key \(keyId), revoked on \(revokedAt) (\(reason)); a revoked key's manifests are refused whenever they were signed"
        case .keysVersionAhead(let signed, let held):
            "signed under keys version \(signed), this kiosk holds \(held)"
        case .identityMismatch(let reason):
            "the manifest is not this package's: \(reason)"
        case .manifestFromTheFuture(let id, let created):
            "the manifest of presentation \(id) was created on \(created), ahead of this host's clock"
        case .manifestExpired(let id, let expires):
            "the manifest of presentation \(id) expired on \(expires); the server must re-sign it"
        case .wentBack(let reason):
            "no going back: \(reason)"
        case .unsignedAfterSigned(let id, let since):
            "presentation \(id) arrived signed on \(since); an unsigned update is refused"
        case .unsignedRefused(let id):
            "the package of presentation \(id) is unsigned and --require-signed is on"
        }
    }
}
