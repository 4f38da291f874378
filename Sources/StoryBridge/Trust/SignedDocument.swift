import Crypto
import Foundation

/// What a signature is for. The signed bytes are `context ‖ 0x0A ‖ CanonicalJSON(signed)`, so a
/// signature of one kind can never be taken for another (docs/design/TRUST.md 1.3).
package enum SignatureContext: String, Sendable {
    case manifest = "storybridge-manifest-v1"
    case keys = "storybridge-keys-v1"
    case checkpoint = "storybridge-checkpoint-v1"

    /// The bytes a signature of this kind covers for the canonical body `canonical`.
    package func signedBytes(_ canonical: [UInt8]) -> [UInt8] {
        Array(rawValue.utf8) + [0x0A] + canonical
    }
}

/// The `signed` part of a document: a manifest, a keys document, a checkpoint.
package protocol SignedBody: Sendable {
    /// The document's name in messages ("manifest", "keys document").
    static var documentName: String { get }
    /// Reads the body from its JSON, refusing one that is not of this kind.
    init(json: JSONValue) throws(TrustFailure)
    /// The body's JSON (canonical-encodable: integers and strings only).
    var json: JSONValue { get }
}

/// One signature of a document: the signing key's id and the 64-byte Ed25519 signature.
package struct DocumentSignature: Sendable, Hashable {
    /// The key id of the key that signed.
    package let keyId: String
    /// The signature's 64 bytes (`sig`, Base64, in the JSON).
    package let signature: Data

    package init(keyId: String, signature: Data) {
        self.keyId = keyId
        self.signature = signature
    }
}

/// A document of the trust layer: `{"signed": body, "signatures": [{"keyId", "sig"}]}`.
///
/// The verifier re-encodes `signed` as parsed (not the typed body: a member this version does not
/// know is still covered) and checks the signatures against those bytes, as TUF does.
package struct SignedDocument<Body: SignedBody>: Sendable {
    /// The typed body.
    package let body: Body
    /// The `signed` object as parsed or made: what the signatures cover.
    let signedValue: JSONValue
    /// The signatures, in document order.
    package let signatures: [DocumentSignature]

    /// An unsigned document of `body`.
    package init(body: Body) {
        self.body = body
        signedValue = body.json
        signatures = []
    }

    private init(body: Body, signedValue: JSONValue, signatures: [DocumentSignature]) {
        self.body = body
        self.signedValue = signedValue
        self.signatures = signatures
    }

    /// Parses a document's JSON text (canonical or not): refuses duplicate names, fractions, a body
    /// of another kind and signatures that are not 64 Base64 bytes.
    package static func parse(_ data: some ContiguousBytes) throws(TrustFailure) -> Self {
        let value = try CanonicalJSON.parse(data)
        guard let signedValue = value["signed"], case .object = signedValue else {
            throw .malformed(what: Body.documentName, reason: "it has no \"signed\" object")
        }
        guard let list = value["signatures"]?.arrayValue else {
            throw .malformed(what: Body.documentName, reason: "it has no \"signatures\" array")
        }
        var signatures: [DocumentSignature] = []
        for entry in list {
            guard let keyId = entry["keyId"]?.stringValue, let text = entry["sig"]?.stringValue,
                let signature = Data(base64Encoded: text), signature.count == 64
            else {
                throw .malformed(what: Body.documentName, reason: "a signature is not {\"keyId\", \"sig\": 64 bytes in Base64}")
            }
            signatures.append(DocumentSignature(keyId: keyId, signature: signature))
        }
        return Self(body: try Body(json: signedValue), signedValue: signedValue, signatures: signatures)
    }

    /// The canonical bytes of `signed`.
    package var canonicalSigned: [UInt8] {
        get throws(TrustFailure) { try CanonicalJSON.encode(signedValue) }
    }

    /// SHA-256 of the canonical bytes of `signed` (not of the signatures), 64 hex digits: a
    /// manifest's hash.
    package var hash: String {
        get throws(TrustFailure) { Self.hash(canonical: try canonicalSigned) }
    }

    /// The hash of a document whose canonical bytes of `signed` are `canonical` (``hash``).
    package static func hash(canonical: [UInt8]) -> String {
        SHA256.hash(data: canonical).hexDigits
    }

    /// This document with one more signature, by `key` for `context`.
    package func signed(with key: TrustPrivateKey, context: SignatureContext) throws(TrustFailure) -> Self {
        let signature = try key.signature(for: context.signedBytes(try canonicalSigned))
        return Self(
            body: body, signedValue: signedValue, signatures: signatures + [DocumentSignature(keyId: key.keyId, signature: signature)])
    }

    /// The key of `keys` whose signature of this document for `context` verifies; refuses the
    /// document when there is none (a signature by a key not in `keys` counts for nothing).
    @discardableResult
    package func verify(keys: [TrustPublicKey], context: SignatureContext) throws(TrustFailure) -> TrustPublicKey {
        try verify(keys: keys, context: context, canonical: try canonicalSigned)
    }

    /// As ``verify(keys:context:)``, with the canonical bytes of `signed` already made
    /// (``canonicalSigned``), for a caller that also hashes them.
    @discardableResult
    package func verify(keys: [TrustPublicKey], context: SignatureContext, canonical: [UInt8]) throws(TrustFailure) -> TrustPublicKey {
        let bytes = context.signedBytes(canonical)
        for signature in signatures {
            for key in keys where key.keyId == signature.keyId && key.isValidSignature(signature.signature, for: bytes) {
                return key
            }
        }
        throw .signatureInvalid(what: Body.documentName, keyIds: signatures.map(\.keyId))
    }

    /// The whole document as JSON.
    package var json: JSONValue {
        [
            "signed": signedValue,
            "signatures": .array(
                signatures.map { ["keyId": .string($0.keyId), "sig": .string($0.signature.base64EncodedString())] }),
        ]
    }

    /// The document as canonical JSON text ending in a newline: what is written to disk and served.
    package func encoded() throws(TrustFailure) -> Data {
        Data(try CanonicalJSON.encode(json) + [0x0A])
    }
}

extension JSONValue: SignedBody {
    /// Any object: the body of a document read without knowing its kind.
    package static var documentName: String { "document" }

    /// Takes any object.
    package init(json: JSONValue) throws(TrustFailure) {
        guard case .object = json else { throw .malformed(what: Self.documentName, reason: "\"signed\" is not an object") }
        self = json
    }

    /// Itself.
    package var json: JSONValue { self }
}
