import Foundation

/// A signing key listed in a keys document, valid since `since`.
package struct KeyEntry: Sendable, Hashable {
    package var key: TrustPublicKey
    package var since: Date

    package init(key: TrustPublicKey, since: Date) {
        self.key = key
        self.since = Date(timeIntervalSince1970: since.timeIntervalSince1970.rounded(.down))
    }
}

/// A key the root revoked: its manifests are refused whenever they were signed.
package struct RevokedKey: Sendable, Hashable {
    package var keyId: String
    package var revokedAt: Date
    package var reason: String

    package init(keyId: String, revokedAt: Date, reason: String) {
        self.keyId = keyId
        self.revokedAt = Date(timeIntervalSince1970: revokedAt.timeIntervalSince1970.rounded(.down))
        self.reason = reason
    }
}

/// The `signed` body of the keys document (docs/design/TRUST.md 1.4): the root's public key, the
/// keys that may sign manifests and the revoked ones, under a version that grows with every change.
/// Signed by the root key only.
package struct KeysDocument: SignedBody, Hashable {
    /// `type` of a keys document.
    package static let type = "storybridge-keys"
    package static var documentName: String { "keys document" }

    package var version: Int
    package var created: Date
    package var expires: Date
    package var root: TrustPublicKey
    package var signingKeys: [KeyEntry]
    package var revoked: [RevokedKey]

    package init(version: Int, created: Date, expires: Date, root: TrustPublicKey, signingKeys: [KeyEntry], revoked: [RevokedKey]) {
        self.version = version
        self.created = Date(timeIntervalSince1970: created.timeIntervalSince1970.rounded(.down))
        self.expires = Date(timeIntervalSince1970: expires.timeIntervalSince1970.rounded(.down))
        self.root = root
        self.signingKeys = signingKeys
        self.revoked = revoked
    }

    package init(json: JSONValue) throws(TrustFailure) {
        let what = Self.documentName
        guard json["type"]?.stringValue == Self.type else { throw .malformed(what: what, reason: "\"type\" is not \"\(Self.type)\"") }
        guard json["specVersion"]?.intValue == 1 else { throw .malformed(what: what, reason: "\"specVersion\" is not 1") }
        version = try json.requiredInt("version", in: what, atLeast: 1)
        created = try TrustTime.member("created", of: json, in: what)
        expires = try TrustTime.member("expires", of: json, in: what)
        guard let rootValue = json["root"] else { throw .malformed(what: what, reason: "it has no \"root\"") }
        root = try TrustPublicKey(json: rootValue, what: what)
        guard let signing = json["signingKeys"]?.arrayValue, let revokedList = json["revoked"]?.arrayValue else {
            throw .malformed(what: what, reason: "\"signingKeys\" and \"revoked\" must be arrays")
        }
        var signingKeys: [KeyEntry] = []
        for entry in signing {
            signingKeys.append(
                KeyEntry(key: try TrustPublicKey(json: entry, what: what), since: try TrustTime.member("since", of: entry, in: what)))
        }
        var revoked: [RevokedKey] = []
        for entry in revokedList {
            revoked.append(
                RevokedKey(
                    keyId: try entry.requiredString("keyId", in: what), revokedAt: try TrustTime.member("revokedAt", of: entry, in: what),
                    reason: try entry.requiredString("reason", in: what)))
        }
        self.signingKeys = signingKeys
        self.revoked = revoked
    }

    package var json: JSONValue {
        [
            "type": .string(Self.type),
            "specVersion": 1,
            "version": .int(version),
            "created": .string(TrustTime.format(created)),
            "expires": .string(TrustTime.format(expires)),
            "root": root.json,
            "signingKeys": .array(
                signingKeys.map { entry in
                    [
                        "keyId": .string(entry.key.keyId), "publicKey": .string(entry.key.base64),
                        "since": .string(TrustTime.format(entry.since)),
                    ]
                }),
            "revoked": .array(
                revoked.map { entry in
                    [
                        "keyId": .string(entry.keyId), "revokedAt": .string(TrustTime.format(entry.revokedAt)),
                        "reason": .string(entry.reason),
                    ]
                }),
        ]
    }

    /// Whether `keyId` is revoked in this document.
    package func isRevoked(_ keyId: String) -> Bool { revoked.contains { $0.keyId == keyId } }

    /// The keys that may sign manifests under this document: its signing keys that are not revoked.
    package var validSigningKeys: [TrustPublicKey] {
        signingKeys.map(\.key).filter { !isRevoked($0.keyId) }
    }
}

/// A keys document as served and stored.
package typealias SignedKeysDocument = SignedDocument<KeysDocument>

extension SignedDocument where Body == KeysDocument {
    /// Checks the document against the pinned `root`: its `root` is the pinned key and the pinned
    /// key's signature verifies. Expiry and versions are the caller's rules.
    package func verify(pinnedRoot root: TrustPublicKey) throws(TrustFailure) {
        guard body.root == root else {
            throw .malformed(what: KeysDocument.documentName, reason: "its root \(body.root.keyId) is not the pinned root \(root.keyId)")
        }
        try verify(keys: [root], context: .keys)
    }
}

extension SignedDocument where Body == PackageManifest {
    /// The key of `keys`' valid signing keys that signed this manifest. A signature by a revoked
    /// key counts for nothing, whenever it was made (revocation is absolute); a manifest signed
    /// only by revoked keys is refused naming the key (``TrustFailure/keyRevoked(keyId:revokedAt:reason:)``).
    @discardableResult
    package func verify(keys: KeysDocument) throws(TrustFailure) -> TrustPublicKey {
        try verify(keys: keys, canonical: try canonicalSigned)
    }

    /// As ``verify(keys:)``, with the canonical bytes of `signed` already made (a sync hashes
    /// them too: the manifest's hash).
    @discardableResult
    package func verify(keys: KeysDocument, canonical: [UInt8]) throws(TrustFailure) -> TrustPublicKey {
        do {
            return try verify(keys: keys.validSigningKeys, context: .manifest, canonical: canonical)
        } catch {
            if let revoked = keys.revoked.first(where: { entry in signatures.contains { $0.keyId == entry.keyId } }) {
                throw .keyRevoked(keyId: revoked.keyId, revokedAt: TrustTime.format(revoked.revokedAt), reason: revoked.reason)
            }
            throw error
        }
    }
}
